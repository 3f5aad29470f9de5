// GET /containers/{id}/export (docker export) and GET /containers/{id}/changes (docker diff).
import { pipeline } from 'node:stream/promises';
import type { Handler } from '../../router.js';
import type { ContainerArchiveBackend } from './archive-backend.js';

export function containerExport(backend: ContainerArchiveBackend): Handler {
  return async (ctx) => {
    const archive = await backend.exportContainer(ctx.params.id);
    ctx.res.writeHead(200, { 'Content-Type': 'application/x-tar' });
    await pipeline(archive, ctx.res, { signal: ctx.signal });
  };
}

export function containerChanges(backend: ContainerArchiveBackend): Handler {
  return async (ctx) => {
    const changes = await backend.changes(ctx.params.id);
    // dockerd answers null when nothing changed
    ctx.json(changes.length === 0 ? null : changes.map((c) => ({ Path: c.path, Kind: c.kind })));
  };
}
