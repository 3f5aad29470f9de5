// The leader's view of which nodes are up: a node with a session is `ready`, one without is `down`
// (swarmkit's "heartbeat failure"). Driven by a watch on the sessions, with a full pass every
// heartbeat period for what a watch cannot tell (a leader that just took over, a write that lost
// a race). Runs on the leader only.
import type { Logger } from 'pino';
import type { Watch } from '../store/cluster-store.js';
import type { ClusterState } from '../cluster/cluster-state.js';
import type { NodeState } from '../cluster/records.js';
import { formatRfc3339Nano, nowNanos } from '../../lib/timestamp.js';

export class NodeLiveness {
  private watch: Watch | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly state: ClusterState,
    private readonly periodMs: () => number,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.watch = this.state.watchSessions(0, () => this.reconcile());
    this.timer = setInterval(() => this.reconcile(), this.periodMs());
    this.reconcile();
  }

  async stop(): Promise<void> {
    this.watch?.cancel();
    clearInterval(this.timer);
    await this.running;
  }

  /** One pass at a time; a change during a pass asks for another. */
  private reconcile(): void {
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.pass().catch((err: unknown) => this.log.debug({ err }, 'swarm: node liveness pass failed'));
      } while (this.again);
      this.running = undefined;
    })();
  }

  private async pass(): Promise<void> {
    const [nodes, sessions] = await Promise.all([this.state.nodes(), this.state.sessions()]);
    for (const { value: node, version } of nodes) {
      const want: NodeState = sessions.has(node.id) ? 'ready' : 'down';
      if (node.status.state === want) continue;
      // a node that just joined has not sent its first heartbeat yet: it stays unknown a while
      if (node.status.state === 'unknown' && want === 'down' && Date.now() - Date.parse(node.createdAt) < 3 * this.periodMs()) continue;
      const message = want === 'down' ? 'heartbeat failure' : '';
      const updatedAt = formatRfc3339Nano(nowNanos());
      await this.state.putNode(version, { ...node, updatedAt, status: { ...node.status, state: want, message } }).catch(() => (this.again = true));
    }
  }
}
