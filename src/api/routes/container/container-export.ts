// GET /containers/{id}/export: docker export, the container's root filesystem as a tar.
import type { Handler } from '../../router.js';
import type { ContainerArchiveBackend } from './archive-backend.js';

export function containerExport(backend: ContainerArchiveBackend): Handler {
  return async (ctx) => {
    const session = await backend.exportContainer(ctx.params.id);
    ctx.res.writeHead(200, { 'Content-Type': 'application/x-tar' });
    await session.run({ out: ctx.res, signal: ctx.signal });
  };
}
