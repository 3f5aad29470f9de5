// berth's own debug routes, outside the API spec (as dockerd's /debug routes are): what a node
// holds, for an operator to look at (docs/design/swarm.md, "Endpoint records").
import type { Route } from '../../router.js';
import type { DebugBackend } from './backend.js';

export function debugRoutes(backend: DebugBackend): Route[] {
  return [
    {
      operationId: 'DebugNetworkTable',
      method: 'GET',
      path: '/debug/networks/{id}/tables/{table}',
      handle: (ctx) => ctx.json(backend.networkTable(ctx.params.id!, ctx.params.table!)),
    },
  ];
}
