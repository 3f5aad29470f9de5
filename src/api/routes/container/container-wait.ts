// POST /containers/{id}/wait: the head goes out as soon as the wait is registered (dockerd flushes
// it then), so a client that starts the container next cannot miss its end; the body follows.
import type { WaitCondition } from '../../../container/container-service.js';
import type { Handler } from '../../router.js';
import type { ContainerBackend } from './backend.js';

const CONDITIONS: readonly WaitCondition[] = ['not-running', 'next-exit', 'removed'];

export function containerWait(backend: ContainerBackend): Handler {
  return async (ctx) => {
    const asked = ctx.query.get('condition') ?? '';
    // dockerd treats an unknown condition as the default
    const condition = CONDITIONS.includes(asked as WaitCondition) ? (asked as WaitCondition) : 'not-running';
    const result = backend.wait(ctx.params.id, condition);
    ctx.res.writeHead(200, { 'Content-Type': 'application/json' });
    ctx.res.flushHeaders();
    const gone = new Promise<undefined>((resolve) => ctx.signal.addEventListener('abort', () => resolve(undefined), { once: true }));
    const r = await Promise.race([result, gone]);
    if (r === undefined) {
      ctx.res.destroy();
      return;
    }
    ctx.res.end(JSON.stringify({ Error: r.error === undefined ? null : { Message: r.error }, StatusCode: r.statusCode }) + '\n');
  };
}
