// Node events on every manager, as dockerd 20.10 logs them from its watch of the store
// (daemon/events.go logNodeEvent): create, update with what changed (availability, role, state,
// leader, reachability as .old/.new attributes), remove; scope swarm, the actor named by the
// node's name or else its hostname.
import type { EventBus } from '../../events/event-bus.js';
import type { Watch } from '../store/cluster-store.js';
import type { ClusterState } from '../cluster/cluster-state.js';

export function publishNodeEvents(state: ClusterState, events: EventBus): Watch {
  return state.watchNodes(0, (now, before) => {
    const node = now ?? before;
    if (node === undefined) return;
    const attributes: Record<string, string> = { name: node.spec.name || node.description.hostname };
    if (now !== undefined && before !== undefined) {
      changed(attributes, 'availability', before.spec.availability, now.spec.availability);
      changed(attributes, 'role', before.role, now.role);
      changed(attributes, 'state', before.status.state, now.status.state);
    }
    events.publish('node', now === undefined ? 'remove' : before === undefined ? 'create' : 'update', { id: node.id, attributes }, 'swarm');
  });
}

function changed(attributes: Record<string, string>, name: string, old: string, now: string): void {
  if (old === now) return;
  attributes[`${name}.old`] = old;
  attributes[`${name}.new`] = now;
}

