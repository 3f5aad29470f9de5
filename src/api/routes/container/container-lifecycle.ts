// POST /containers/{id}/start, stop, restart, kill, pause, unpause and resize: 204 (resize 200) with
// no body; the service's errors (304 for nothing to do, 409 for the wrong state) say the rest.
import { invalidParameter } from '../../../errors.js';
import { atoi, terminalSize } from '../../query.js';
import type { Handler } from '../../router.js';
import type { ContainerBackend } from './backend.js';

export function containerStart(backend: ContainerBackend): Handler {
  return async (ctx) => {
    // 1.24's start body carried a HostConfig; dockerd 20.10 ignores an empty one and refuses any other
    const body = await ctx.readJson();
    if (body !== undefined && body !== null && Object.keys(body as object).length > 0) {
      throw invalidParameter('starting container with non-empty request body was deprecated since API v1.22 and removed in v1.24');
    }
    await backend.start(ctx.params.id);
    ctx.res.writeHead(204).end();
  };
}

export function containerStop(backend: ContainerBackend): Handler {
  return async (ctx) => {
    await backend.stop(ctx.params.id, timeoutParam(ctx.query));
    ctx.res.writeHead(204).end();
  };
}

export function containerRestart(backend: ContainerBackend): Handler {
  return async (ctx) => {
    await backend.restart(ctx.params.id, timeoutParam(ctx.query));
    ctx.res.writeHead(204).end();
  };
}

export function containerKill(backend: ContainerBackend): Handler {
  return async (ctx) => {
    await backend.kill(ctx.params.id, ctx.query.get('signal') ?? undefined);
    ctx.res.writeHead(204).end();
  };
}

export function containerPause(backend: ContainerBackend): Handler {
  return async (ctx) => {
    await backend.pause(ctx.params.id);
    ctx.res.writeHead(204).end();
  };
}

export function containerUnpause(backend: ContainerBackend): Handler {
  return async (ctx) => {
    await backend.unpause(ctx.params.id);
    ctx.res.writeHead(204).end();
  };
}

export function containerResize(backend: ContainerBackend): Handler {
  return async (ctx) => {
    const { height, width } = terminalSize(ctx.query);
    await backend.resize(ctx.params.id, height, width);
    ctx.res.writeHead(200, { 'Content-Length': 0 }).end();
  };
}

/** `t`: seconds; absent means the container's StopTimeout, or 10. */
function timeoutParam(query: URLSearchParams): number | undefined {
  const t = query.get('t');
  if (t === null || t === '') return undefined;
  return atoi(t);
}
