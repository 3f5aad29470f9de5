// The Network routes' calls: this node's networks (network-service.ts, network-attachments.ts)
// and, on a swarm manager, the swarm's (SwarmNetworks), as dockerd's network router combines its
// daemon's and its cluster's: a cluster that cannot answer a list leaves its networks out, a name
// a swarm network has is taken (409) before any other check, an overlay is made by the swarm, a
// swarm network is removed by it, and a prune removes the unused swarm networks too.
import { conflict, EngineError } from '../errors.js';
import type { FilterArgs } from '../lib/filters.js';
import { decodeNetworkCreate } from './create-request.js';
import type { NetworkAttachments } from './network-attachments.js';
import { pruneSelection } from './network-filters.js';
import type { NetworkRecord } from './network-record.js';
import type { NetworkService, NetworkView } from './network-service.js';
import type { SwarmNetworks } from './swarm-networks.js';

export function networkApi(service: NetworkService, attachments: NetworkAttachments, swarm: SwarmNetworks) {
  /** The swarm's networks on a manager; none elsewhere, nor when the cluster cannot answer (dockerd ignores its error). */
  const swarmNetworks = async (): Promise<NetworkRecord[]> => (swarm.role() === 'manager' ? swarm.list().catch(() => []) : []);
  return {
    list: async (filters: FilterArgs): Promise<NetworkView[]> => service.list(filters, await swarmNetworks()),
    /** `verbose`: a swarm network's Services, as this node's table has them */
    async inspect(term: string, scope: string, verbose: boolean): Promise<NetworkView> {
      const view = await service.inspect(term, scope, await swarmNetworks());
      return verbose && view.network.scope === 'swarm' ? { ...view, services: swarm.services(view.network.id) } : view;
    },
    async create(body: unknown): Promise<{ id: string; warning: string }> {
      const req = decodeNetworkCreate(body);
      if ((await swarmNetworks()).some((n) => n.name === req.name)) throw conflict(`network with name ${req.name} already exists`);
      const made = await service.create(req, swarm.role());
      return made === 'swarm' ? { id: await swarm.create(req), warning: '' } : made;
    },
    async remove(term: string): Promise<void> {
      const network = service.toRemove(term, await swarmNetworks());
      if (network.scope === 'swarm') await swarm.remove(network.id);
      else await attachments.removeNetwork(network.id);
    },
    async prune(filters: FilterArgs): Promise<string[]> {
      const prunable = pruneSelection(filters);
      const removed: string[] = [];
      for (const network of await swarmNetworks()) {
        if (!prunable({ network, endpointCount: 0 })) continue;
        // as dockerd: one a service or task uses stays, without an error
        const gone = await swarm.remove(network.id).then(
          () => true,
          (err: unknown) => (err instanceof EngineError ? false : Promise.reject(err)),
        );
        if (gone) removed.push(network.name);
      }
      return [...removed, ...(await attachments.pruneNetworks(filters))];
    },
  };
}
