// GET /networks/{id}: `verbose` must be a Go boolean, and adds a swarm network's Services (its
// Peers come with overlay networks); `scope` keeps the networks of that scope.
import { invalidParameter } from '../../../errors.js';
import type { Handler } from '../../router.js';
import type { NetworkBackend } from './backend.js';
import { toNetwork } from './to-api.js';

const GO_TRUE = ['1', 't', 'T', 'TRUE', 'true', 'True'];
const GO_BOOLEANS = [...GO_TRUE, '0', 'f', 'F', 'FALSE', 'false', 'False'];

export function networkInspect(backend: NetworkBackend): Handler {
  return async (ctx) => {
    const verbose = ctx.query.get('verbose') ?? '';
    if (verbose !== '' && !GO_BOOLEANS.includes(verbose)) {
      throw invalidParameter(`invalid value for verbose: ${verbose}: strconv.ParseBool: parsing ${JSON.stringify(verbose)}: invalid syntax`);
    }
    ctx.json(toNetwork(await backend.inspect(ctx.params.id, ctx.query.get('scope') ?? '', GO_TRUE.includes(verbose)), true));
  };
}
