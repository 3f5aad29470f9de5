// GET /containers/{id}/changes: docker diff, what the container changed in its own layer.
import type { Handler } from '../../router.js';
import type { ContainerArchiveBackend } from './archive-backend.js';

export function containerChanges(backend: ContainerArchiveBackend): Handler {
  return async (ctx) => {
    const changes = await backend.changes(ctx.params.id);
    // dockerd answers null when nothing changed
    ctx.json(changes.length === 0 ? null : changes.map((c) => ({ Path: c.path, Kind: c.kind })));
  };
}
