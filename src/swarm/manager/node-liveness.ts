// The leader's view of which nodes are up: a node with a session is `ready`, one without is `down`
// (swarmkit's "heartbeat failure"). A pass after each change of the sessions and each heartbeat
// period (reconcile-loop.ts). Runs on the leader only.
import type { Logger } from 'pino';
import { formatRfc3339Nano, nowNanos } from '../../lib/timestamp.js';
import type { ClusterState } from '../cluster/cluster-state.js';
import type { NodeState } from '../cluster/records.js';
import { ReconcileLoop } from './reconcile-loop.js';

/** The loop, to start when this manager leads and stop when it no longer does. */
export function nodeLiveness(state: ClusterState, periodMs: () => number, log: Logger): ReconcileLoop {
  const loop: ReconcileLoop = new ReconcileLoop('node liveness', () => pass(state, periodMs(), () => loop.passAgain()), (onChange) => state.watchSessions(0, onChange), periodMs, log);
  return loop;
}

async function pass(state: ClusterState, periodMs: number, passAgain: () => void): Promise<void> {
  const [nodes, sessions] = await Promise.all([state.nodes(), state.sessions()]);
  for (const { value: node, version } of nodes) {
    const want: NodeState = sessions.has(node.id) ? 'ready' : 'down';
    if (node.status.state === want) continue;
    // a node that just joined has not sent its first heartbeat yet: it stays unknown a while
    if (node.status.state === 'unknown' && want === 'down' && Date.now() - Date.parse(node.createdAt) < 3 * periodMs) continue;
    const message = want === 'down' ? 'heartbeat failure' : '';
    const updatedAt = formatRfc3339Nano(nowNanos());
    await state.putNode(version, { ...node, updatedAt, status: { ...node.status, state: want, message } }).catch(passAgain);
  }
}
