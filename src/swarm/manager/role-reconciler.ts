// The leader's part in role changes (swarmkit's role manager): a node whose spec asks to be a
// worker while it is a manager is made one in the store (the node, watching its own record, then
// stops its manager), and the etcd members of nodes that are no managers are removed: a demoted
// node's two heartbeat periods after its demotion (time for it to see it, once a period, and stop
// its member itself), a vanished one's at once. A new manager's member, added as a learner, is
// promoted to a voter once it runs. Promotions of nodes are the promoted node's to start (it asks
// for a member when its heartbeat tells it). Runs on the leader only, a pass after each change of
// the nodes and each period (reconcile-loop.ts).
import type { Logger } from 'pino';
import { formatRfc3339Nano, nowNanos } from '../../lib/timestamp.js';
import type { EtcdMembership } from '../store/etcd-membership.js';
import { ReconcileLoop } from './reconcile-loop.js';
import type { ClusterState } from '../cluster/cluster-state.js';

/** The loop, to start when this manager leads and stop when it no longer does. */
export function roleReconciler(state: ClusterState, membership: () => EtcdMembership | undefined, periodMs: () => number, log: Logger): ReconcileLoop {
  return new ReconcileLoop('role', () => pass(state, membership(), periodMs(), log), (onChange) => state.watchNodes(0, onChange), periodMs, log);
}

async function pass(state: ClusterState, membership: EtcdMembership | undefined, periodMs: number, log: Logger): Promise<void> {
  const nodes = await state.nodes();
  for (const { value: n, version } of nodes) {
    if (n.spec.role !== 'worker' || n.role !== 'manager') continue;
    await state.putNode(version, { ...n, role: 'worker', managerAddr: undefined, updatedAt: formatRfc3339Nano(nowNanos()) });
    log.info({ nodeId: n.id }, 'swarm: manager demoted');
  }
  if (membership === undefined) return;
  const current = await state.nodes();
  // a member is wanted for every node the spec makes a manager: those promoted ask for theirs
  const wanted = current.filter((n) => n.value.spec.role === 'manager').map((n) => n.value);
  const demotedAt = new Map(current.filter((n) => n.value.spec.role === 'worker').map((n) => [n.value.id, Date.parse(n.value.updatedAt)]));
  for (const member of await membership.list()) {
    const manager = wanted.find((m) => m.id === member.name || (m.etcdPeerUrl !== undefined && member.peerUrls.includes(m.etcdPeerUrl)));
    if (manager !== undefined) {
      // a new manager's member votes once it runs and has caught up
      if (member.learner && member.started) await membership.promote(member.id).then(() => log.info({ member: member.name }, 'swarm: etcd member promoted'));
      continue;
    }
    const since = demotedAt.get(member.name);
    // the next periodic pass comes back to it
    if (since !== undefined && Date.now() - since < 2 * periodMs) continue;
    await membership.remove(member.id);
    log.info({ member: member.name || member.id }, 'swarm: etcd member removed');
  }
}
