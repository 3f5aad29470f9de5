// Which manager leads: the one whose lease holds the leader key (docs/design/swarm.md, "Cluster
// store"). Every manager campaigns when the key is free and keeps its lease alive while it leads;
// a leader that dies or is cut off loses the key when its lease expires, and the others, watching
// the key, campaign again. No consensus of berth's own: the store's transactions decide.
import type { Logger } from 'pino';
import { LeaseNotFoundError, type Watch } from '../store/cluster-store.js';
import { LEADER_KEY, decode, encode, type ClusterState } from '../cluster/cluster-state.js';

/** How long a leader that stopped renewing keeps the key: the failover time's main part. */
const LEASE_TTL_MS = 3000;
const RENEW_EVERY_MS = 1000;

export class Leadership {
  private lease: string | undefined;
  private leading = false;
  private stopped = false;
  private watch: Watch | undefined;
  private timer: NodeJS.Timeout | undefined;
  private campaigning: Promise<void> | undefined;

  constructor(
    private readonly state: ClusterState,
    private readonly nodeId: string,
    private readonly log: Logger,
    private readonly onChange: (leading: boolean) => void,
  ) {}

  async start(): Promise<void> {
    // a key this node held before a restart is its own to take back at once (a store without a
    // quorum says nothing now: the key's lease runs out, and the watch below campaigns)
    try {
      const held = await this.state.store.get(LEADER_KEY);
      if (held !== undefined && decode<{ nodeId: string }>(held.value).nodeId === this.nodeId) await this.state.store.txn([{ key: LEADER_KEY, modRevision: held.modRevision }], [{ delete: { key: LEADER_KEY } }]);
    } catch (err) {
      this.log.debug({ err }, 'swarm: leader key not read');
    }
    this.watch = this.state.store.watch(LEADER_KEY, 0, (events) => {
      if (events.some((e) => e.type === 'delete')) this.campaign();
    });
    this.campaign();
    await this.campaigning;
    this.timer = setInterval(() => void this.renew(), RENEW_EVERY_MS);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.watch?.cancel();
    await this.campaigning;
    if (this.lease !== undefined) await this.state.store.revokeLease(this.lease).catch(() => undefined);
    this.setLeading(false);
  }

  private campaign(): void {
    if (this.stopped || this.campaigning !== undefined) return;
    this.campaigning = (async () => {
      try {
        this.lease ??= await this.state.store.grantLease(LEASE_TTL_MS);
        const won = await this.state.store.txn([{ key: LEADER_KEY, modRevision: 0 }], [{ put: { key: LEADER_KEY, value: encode({ nodeId: this.nodeId }), lease: this.lease } }]);
        // a key still on this node's lease (a renewal that failed to answer) is still its own
        const mine = won.succeeded || (await this.state.store.get(LEADER_KEY))?.lease === this.lease;
        this.setLeading(mine);
      } catch (err) {
        this.log.debug({ err }, 'swarm: leader campaign failed');
        this.lease = undefined;
      } finally {
        this.campaigning = undefined;
      }
    })();
  }

  /** Keeps the lease alive; a lost lease is lost leadership, and the next campaign starts over. */
  private async renew(): Promise<void> {
    if (this.stopped) return;
    if (this.lease === undefined) return this.campaign();
    try {
      await this.state.store.keepAlive(this.lease);
      if (!this.leading) this.campaign();
    } catch (err) {
      if (err instanceof LeaseNotFoundError) this.lease = undefined;
      this.setLeading(false);
      this.campaign();
    }
  }

  private setLeading(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    this.log.info({ nodeId: this.nodeId, leading }, leading ? 'swarm: this manager leads' : 'swarm: this manager no longer leads');
    this.onChange(leading);
  }
}
