// Service events on every manager, as dockerd 20.10 logs them from its watch of the store
// (daemon/events.go logServiceEvent): create, update (with updatestate.old/new and
// replicas.old/new attributes when those changed), remove; scope swarm, the actor named by the
// service's name.
import type { EventBus } from '../../events/event-bus.js';
import { decode, type ClusterState } from '../cluster/cluster-state.js';
import type { Watch } from '../store/cluster-store.js';
import { SERVICES, type ServiceRecord } from './service-records.js';

export function publishServiceEvents(state: ClusterState, events: EventBus): Watch {
  return state.store.watch(SERVICES, 0, (changes) => {
    for (const e of changes) {
      const now = e.type === 'put' ? decode<ServiceRecord>(e.kv.value) : undefined;
      const before = e.prev === undefined ? undefined : decode<ServiceRecord>(e.prev.value);
      const record = now ?? before;
      if (record === undefined) continue;
      const attributes: Record<string, string> = { name: record.spec.Name };
      if (now !== undefined && before !== undefined) {
        if (now.updateStatus?.state !== before.updateStatus?.state) {
          if (before.updateStatus !== undefined) attributes['updatestate.old'] = before.updateStatus.state;
          if (now.updateStatus !== undefined) attributes['updatestate.new'] = now.updateStatus.state;
        }
        const replicas = (r: ServiceRecord) => r.spec.Mode.Replicated?.Replicas;
        if (replicas(now) !== replicas(before) && replicas(now) !== undefined && replicas(before) !== undefined) {
          attributes['replicas.old'] = String(replicas(before));
          attributes['replicas.new'] = String(replicas(now));
        }
      }
      const action = now === undefined ? 'remove' : before === undefined ? 'create' : 'update';
      events.publish('service', action, { id: record.id, attributes }, 'swarm');
    }
  });
}
