// The leader's part in role changes (swarmkit's role manager): a node whose spec asks to be a
// worker while it is a manager is made one in the store (the node, watching its own record, then
// stops its manager), and the etcd members of nodes that are no managers are removed: a demoted
// node's two heartbeat periods after its demotion (time for it to see it, once a period, and stop its member itself), a
// vanished one's at once. A new manager's member, added as a learner, is promoted to a voter once
// it runs. Promotions of nodes are the promoted node's to start (it asks for a member when its
// heartbeat tells it). Runs on the leader only, each pass after a node changes and once a period.
import type { Logger } from 'pino';
import { formatRfc3339Nano, nowNanos } from '../../lib/timestamp.js';
import type { EtcdMembership } from '../store/etcd-membership.js';
import type { Watch } from '../store/cluster-store.js';
import type { ClusterState } from '../cluster/cluster-state.js';

export class RoleReconciler {
  private watch: Watch | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly state: ClusterState,
    private readonly membership: () => EtcdMembership | undefined,
    private readonly periodMs: () => number,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.watch = this.state.watchNodes(0, () => this.reconcile());
    this.timer = setInterval(() => this.reconcile(), this.periodMs());
    this.reconcile();
  }

  async stop(): Promise<void> {
    this.watch?.cancel();
    clearInterval(this.timer);
    await this.running;
  }

  private reconcile(): void {
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.pass().catch((err: unknown) => this.log.debug({ err }, 'swarm: role pass failed'));
      } while (this.again);
      this.running = undefined;
    })();
  }

  private async pass(): Promise<void> {
    const nodes = await this.state.nodes();
    for (const { value: n, version } of nodes) {
      if (n.spec.role !== 'worker' || n.role !== 'manager') continue;
      await this.state.putNode(version, { ...n, role: 'worker', managerAddr: undefined, updatedAt: formatRfc3339Nano(nowNanos()) });
      this.log.info({ nodeId: n.id }, 'swarm: manager demoted');
    }
    const membership = this.membership();
    if (membership === undefined) return;
    const current = await this.state.nodes();
    // a member is wanted for every node the spec makes a manager: those promoted ask for theirs
    const wanted = current.filter((n) => n.value.spec.role === 'manager').map((n) => n.value);
    const demotedAt = new Map(current.filter((n) => n.value.spec.role === 'worker').map((n) => [n.value.id, Date.parse(n.value.updatedAt)]));
    for (const member of await membership.list()) {
      const manager = wanted.find((m) => m.id === member.name || (m.etcdPeerUrl !== undefined && member.peerUrls.includes(m.etcdPeerUrl)));
      if (manager !== undefined) {
        // a new manager's member votes once it runs and has caught up
        if (member.learner && member.started) await membership.promote(member.id).then(() => this.log.info({ member: member.name }, 'swarm: etcd member promoted'));
        continue;
      }
      const since = demotedAt.get(member.name);
      // the next periodic pass comes back to it
      if (since !== undefined && Date.now() - since < 2 * this.periodMs()) continue;
      await membership.remove(member.id);
      this.log.info({ member: member.name || member.id }, 'swarm: etcd member removed');
    }
  }
}
