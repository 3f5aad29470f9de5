// The membership of the managers' etcd cluster (docs/design/swarm.md, "Cluster store"), through
// the etcd3 client's Cluster service: what a join or a promotion to manager adds, what a
// demotion, a leave or a node rm removes; and which of etcd's errors mean that the cluster cannot
// answer. Meant for the local member's client URL: what etcd 3.4 says of its members and its
// leader is that member's view.
//
// A member joins as a learner (etcd 3.4's non-voting member): add() adds it, EtcdMember starts it
// ('existing'), and promote() makes it a voter once it has caught up with the leader. Until then
// the quorum is the cluster's as before, so a join whose member never runs can be undone with
// remove(); a voting member added to a cluster of one would leave it without a leader until that
// member ran, and without a leader nothing can be removed. etcd takes one learner at a time, and
// serves a learner's clients only its status and serializable reads: the joining manager uses the
// store once its member is promoted.
//
// etcd checks each change against the members it sees (--strict-reconfig-check, its default): it
// adds a member only once the member asked has been connected to every voting member for 5 s, and
// removes a running voter only while those connected for 5 s, less that one, are a quorum
// (UNAVAILABLE "etcdserver: unhealthy cluster"): just after a member started, or while one is
// down, it refuses an add. That refusal comes before anything is proposed, as does a promotion's
// "can only promote a learner member which is in sync with leader": add(), remove() and promote()
// try again for up to 10 s. Nothing else is retried: an add whose answer was lost may have been
// applied, and made again would add a second member (EtcdStore's calls are made once for the same
// reason).
//
// What a member without a leader answers (a cluster of three with two members stopped; etcd's
// default timings, election timeout 1 s; measured against Debian's etcd 3.4.23):
//   - a read (range) fails after etcd's request timeout, 5 s + 2 election timeouts = 7 s, with
//     UNAVAILABLE "etcdserver: request timed out";
//   - a write (txn, lease grant) waits as long for a leader to propose to, then fails with
//     UNKNOWN "context deadline exceeded";
//   - a client deadline shorter than that ends either first, with DEADLINE_EXCEEDED;
//   - etcd refuses a member add or remove at once with UNAVAILABLE "etcdserver: unhealthy
//     cluster" (add() and remove() fail with it after their 10 s); the member list and the status
//     answer at once, the status naming no leader (0) an election timeout after the quorum went;
//   - "etcdserver: no leader" comes only to calls that ask for a leader (gRPC metadata
//     hasleader=true, which etcd3 does not send), "leader changed" during an election.
// A member that is down or unreachable: UNAVAILABLE "No connection established" at once.
// After kill -9 of the leader of three, the two others had a new one 1.1 to 1.9 s later; a write
// sent to a follower before then was lost with the old leader, and failed after the 7 s with
// UNAVAILABLE "etcdserver: request timed out" (applied or not: etcd cannot tell).
import { Etcd3, type IMember, type IOptions } from 'etcd3';

export interface EtcdMembershipOptions {
  /** client URLs of members (https://IP:PORT): the local member's */
  endpoints: string[];
  /** the swarm CA, and this manager's certificate and key (PEM); none for an etcd of plain http */
  tls?: { ca: Buffer; cert?: Buffer; key?: Buffer };
  /** the time limit of one call; 10 s by default */
  callTimeoutMs?: number;
}

export interface EtcdMemberInfo {
  /** etcd's member ID, as a decimal string */
  id: string;
  /** the name it started with; empty until it has started */
  name: string;
  peerUrls: string[];
  /** empty until it has started */
  clientUrls: string[];
  /** whether it has joined and published its name and client URLs */
  started: boolean;
  /** a learner, not yet promoted: it votes nowhere and serves no store */
  learner: boolean;
}

type GlobalPolicy = NonNullable<NonNullable<IOptions['faultHandling']>['global']>;

/** Runs a call once (etcd3's fault-handling slot wants a cockatiel policy; only execute() is called), as EtcdStore does. */
const ONCE = { execute: async (fn: (context: { signal: AbortSignal }) => unknown) => fn({ signal: new AbortController().signal }) } as unknown as GlobalPolicy;

/** how long a change waits out etcd's refusals that pass (it wants 5 s of connection to the others, a learner in sync) */
const RECONFIG_WAIT_MS = 10_000;
const RECONFIG_RETRY_MS = 500;
const PASSING_REFUSALS = /etcdserver: (unhealthy cluster|can only promote a learner member which is in sync with leader)/;

export class EtcdMembership {
  private readonly client: Etcd3;

  constructor(opts: EtcdMembershipOptions) {
    const callTimeoutMs = opts.callTimeoutMs ?? 10_000;
    this.client = new Etcd3({
      hosts: opts.endpoints,
      ...(opts.tls !== undefined ? { credentials: { rootCertificate: opts.tls.ca, privateKey: opts.tls.key, certChain: opts.tls.cert } } : {}),
      defaultCallOptions: () => ({ deadline: Date.now() + callTimeoutMs }),
      // no circuit breaker over a single member: it would refuse calls for 5 s after it is back
      faultHandling: { global: ONCE, ...(opts.endpoints.length === 1 ? { host: () => ONCE } : {}) },
    });
  }

  async list(): Promise<EtcdMemberInfo[]> {
    const res = await this.client.cluster.memberList({});
    return res.members.map(memberInfo);
  }

  /**
   * Adds a learner that will serve its peers at `peerUrl`, to promote() once it runs. Returns its
   * ID and the initial cluster to start it with (EtcdMember, 'existing'): each member's
   * name=peerURL, `name` for the new one.
   */
  async add(name: string, peerUrl: string): Promise<{ id: string; initialCluster: string }> {
    const res = await waitOutPassingRefusals(() => this.client.cluster.memberAdd({ peerURLs: [peerUrl], isLearner: true }));
    const id = res.member.ID;
    const initialCluster = res.members.flatMap((m) => m.peerURLs.map((u) => `${m.ID === id ? name : m.name}=${u}`)).join(',');
    return { id, initialCluster };
  }

  /** Makes learner `id`, started, a voting member. */
  async promote(id: string): Promise<void> {
    await waitOutPassingRefusals(() => this.client.cluster.memberPromote({ ID: id }));
  }

  /** Removes member `id`. A running member that finds itself removed stops (and EtcdMember leaves it stopped). */
  async remove(id: string): Promise<void> {
    await waitOutPassingRefusals(() => this.client.cluster.memberRemove({ ID: id }));
  }

  /** The ID of the leader the member asked follows (itself, maybe); undefined while it has none. */
  async leader(): Promise<string | undefined> {
    const { leader } = await this.client.maintenance.status();
    return leader === '0' ? undefined : leader;
  }

  close(): void {
    this.client.close();
  }
}

async function waitOutPassingRefusals<T>(call: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + RECONFIG_WAIT_MS;
  for (;;) {
    try {
      return await call();
    } catch (err) {
      if (!(err instanceof Error && PASSING_REFUSALS.test(err.message)) || Date.now() > deadline) throw err;
    }
    await new Promise((r) => setTimeout(r, RECONFIG_RETRY_MS));
  }
}

function memberInfo(m: IMember): EtcdMemberInfo {
  return { id: m.ID, name: m.name, peerUrls: m.peerURLs, clientUrls: m.clientURLs, started: m.name !== '', learner: m.isLearner };
}
