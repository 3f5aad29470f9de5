// HEAD, GET and PUT /containers/{id}/archive: docker cp's stat, copy out and copy in.
import { queryBool } from '../../query.js';
import type { Handler } from '../../router.js';
import type { ContainerArchiveBackend } from './archive-backend.js';

const STAT_HEADER = 'X-Docker-Container-Path-Stat';

export function containerArchiveInfo(backend: ContainerArchiveBackend): Handler {
  return async (ctx) => {
    const stat = await backend.statPath(ctx.params.id, ctx.query.get('path') ?? '');
    ctx.res.writeHead(200, { [STAT_HEADER]: stat });
    ctx.res.end();
  };
}

export function containerArchive(backend: ContainerArchiveBackend): Handler {
  return async (ctx) => {
    const session = await backend.archivePath(ctx.params.id, ctx.query.get('path') ?? '');
    ctx.res.writeHead(200, { 'Content-Type': 'application/x-tar', [STAT_HEADER]: session.stat });
    await session.run({ out: ctx.res, signal: ctx.signal });
  };
}

export function putContainerArchive(backend: ContainerArchiveBackend): Handler {
  return async (ctx) => {
    await backend.extractToDir(ctx.params.id, {
      path: ctx.query.get('path') ?? '',
      body: ctx.req,
      noOverwriteDirNonDir: queryBool(ctx.query, 'noOverwriteDirNonDir'),
      copyUIDGID: queryBool(ctx.query, 'copyUIDGID'),
    });
    ctx.res.writeHead(200, { 'Content-Length': 0 });
    ctx.res.end();
  };
}
