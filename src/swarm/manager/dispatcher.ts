// Nodes' sessions, as swarmkit's dispatcher keeps them: each heartbeat a node sends to any manager
// keeps its session key alive, on a lease of three heartbeat periods. The key (not this manager's
// memory) is the session: a node that fails over to another manager keeps it, and one whose
// heartbeats stop loses it when the lease runs out, which the leader sees (node-liveness.ts).
import { LeaseNotFoundError } from '../store/cluster-store.js';
import type { ClusterState } from '../cluster/cluster-state.js';

/** Heartbeats a session outlives: the third missed one ends it. */
const MISSED_HEARTBEATS = 3;

export class Dispatcher {
  /** the leases of sessions this manager renewed last */
  private readonly leases = new Map<string, string>();

  constructor(
    private readonly state: ClusterState,
    private readonly managerId: string,
    private readonly periodMs: () => number,
  ) {}

  /** Keeps `nodeId`'s session alive, opening it when it has none. */
  async heartbeat(nodeId: string): Promise<void> {
    const known = this.leases.get(nodeId) ?? (await this.state.session(nodeId))?.lease;
    if (known !== undefined) {
      try {
        await this.state.call(() => this.state.store.keepAlive(known));
        this.leases.set(nodeId, known);
        return;
      } catch (err) {
        if (!(err instanceof Error && err.cause instanceof LeaseNotFoundError)) throw err;
      }
    }
    this.leases.set(nodeId, await this.state.openSession({ nodeId, managerId: this.managerId }, this.periodMs() * MISSED_HEARTBEATS));
  }

  /** Ends `nodeId`'s session now (the node left, or was removed). */
  async end(nodeId: string): Promise<void> {
    const lease = this.leases.get(nodeId) ?? (await this.state.session(nodeId))?.lease;
    this.leases.delete(nodeId);
    if (lease !== undefined) await this.state.call(() => this.state.store.revokeLease(lease)).catch(() => undefined);
  }
}
