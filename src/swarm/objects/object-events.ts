// Secret, config and network events on every manager, as dockerd 20.10 logs them from its watch
// of the store (daemon/events.go logSecretEvent, logConfigEvent, logNetworkEvent): create, update,
// remove, scope swarm, the actor named by the object's name.
import type { EventBus } from '../../events/event-bus.js';
import { decode, type ClusterState } from '../cluster/cluster-state.js';
import type { Watch } from '../store/cluster-store.js';

/** The events of the objects stored under `prefix` (each with an id and a spec's name). */
export function publishObjectEvents(state: ClusterState, events: EventBus, kind: 'secret' | 'config' | 'network', prefix: string): Watch {
  return state.store.watch(prefix, 0, (changes) => {
    for (const e of changes) {
      const record = decode<{ id: string; spec: { name: string } } | null>((e.type === 'put' ? e.kv : e.prev)?.value ?? Buffer.from('null'));
      if (record === null) continue;
      const action = e.type === 'delete' ? 'remove' : e.prev === undefined ? 'create' : 'update';
      events.publish(kind, action, { id: record.id, attributes: { name: record.spec.name } }, 'swarm');
    }
  });
}
