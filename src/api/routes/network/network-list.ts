// GET /networks: the networks the filters keep (network-filters.ts). Below API 1.28 each network
// lists its containers, as dockerd's detailed list does; from 1.28 Containers is empty (null for
// a swarm network as the managers list it).
import { FilterArgs } from '../../../lib/filters.js';
import type { Handler } from '../../router.js';
import type { NetworkBackend } from './backend.js';
import { toNetwork } from './to-api.js';

export function networkList(backend: NetworkBackend): Handler {
  return async (ctx) => {
    const views = await backend.list(FilterArgs.fromJson(ctx.query.get('filters')));
    const withContainers = ctx.api.has('networkListContainers');
    ctx.json(views.map((v) => toNetwork(v, withContainers)));
  };
}
