// GET /containers/{id}/json: docker inspect, with sizes when asked.
import { queryBool } from '../../query.js';
import type { Handler } from '../../router.js';
import type { ContainerBackend } from './backend.js';
import { toContainerInspect } from './to-api.js';

export function containerInspect(backend: ContainerBackend): Handler {
  return (ctx) => {
    const size = queryBool(ctx.query, 'size');
    ctx.json(toContainerInspect(backend.inspect(ctx.params.id, { size }), size));
  };
}
