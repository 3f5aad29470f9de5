// The iptables rules of bridge networks, in chains of berth's own (dockerd's pattern, v20.10
// libnetwork drivers/bridge/setup_ip_tables.go), never touching another rule:
//   filter FORWARD → BERTH-FORWARD (first): BERTH-ISOLATION-STAGE-1, then per network the answers
//     to its containers' connections and what DNAT lets in, its way out, and ICC (accept or drop);
//   BERTH-ISOLATION-STAGE-1: traffic leaving a bridge for another interface goes through STAGE-2,
//     which drops it when that interface is another network's bridge (two networks can't reach
//     each other), but for connections DNAT'd to a published port (a port of the host's, which
//     dockerd's proxy serves to every container); an internal network drops whatever leaves or
//     enters its subnet;
//   nat POSTROUTING → BERTH-POSTROUTING: one masquerading rule per network that is not internal.
// Each network's rules are made once per daemon (iptables keeps them across restarts, and making
// them is idempotent) and removed with the network. With `iptables: false` none is made.
import { writeFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Iptables } from '../runtime/iptables.js';
import { allocatedPools, type NetworkRecord } from './network-record.js';

const FORWARD = 'BERTH-FORWARD';
const ISOLATION_1 = 'BERTH-ISOLATION-STAGE-1';
const ISOLATION_2 = 'BERTH-ISOLATION-STAGE-2';
const POSTROUTING = 'BERTH-POSTROUTING';
const ICC_OPTION = 'com.docker.network.bridge.enable_icc';

interface NetworkRule {
  table: 'filter' | 'nat';
  chain: string;
  rule: string[];
}

export class NetworkFirewall {
  private prepared: Promise<void> | undefined;
  private readonly plumbed = new Map<string, Promise<void>>();

  constructor(
    private readonly iptables: Iptables,
    private readonly log: Logger,
  ) {}

  /** The bridge network's rules, made once per daemon; also forwarding on, as dockerd turns it on. */
  plumb(network: NetworkRecord): Promise<void> {
    let done = this.plumbed.get(network.id);
    if (done === undefined) {
      done = this.prepare().then(async () => {
        for (const r of networkRules(network)) await this.iptables.ensureRule(r.table, r.chain, r.rule);
      });
      // a failure is tried again at the next attachment
      done.catch(() => this.plumbed.delete(network.id));
      this.plumbed.set(network.id, done);
    }
    return done;
  }

  /** Removes the network's rules (its bridge goes with the network, not here). */
  async unplumb(network: NetworkRecord): Promise<void> {
    this.plumbed.delete(network.id);
    for (const r of networkRules(network)) await this.iptables.deleteRule(r.table, r.chain, r.rule);
  }

  private prepare(): Promise<void> {
    this.prepared ??= (async () => {
      for (const chain of [FORWARD, ISOLATION_1, ISOLATION_2]) await this.iptables.ensureChain('filter', chain);
      await this.iptables.ensureJump('filter', 'FORWARD', FORWARD, 'top');
      await this.iptables.ensureRule('filter', FORWARD, ['-j', ISOLATION_1], 'top');
      // both ways of a connection to a published port: portmap DNATs what any bridge sends to the host's address
      await this.iptables.ensureRule('filter', ISOLATION_2, ['-m', 'conntrack', '--ctstate', 'DNAT', '-j', 'RETURN'], 'top');
      await this.iptables.ensureChain('nat', POSTROUTING);
      await this.iptables.ensureJump('nat', 'POSTROUTING', POSTROUTING, 'bottom');
      await writeFile('/proc/sys/net/ipv4/ip_forward', '1').catch((err: unknown) => this.log.warn({ err }, 'could not turn IPv4 forwarding on'));
    })();
    this.prepared.catch(() => (this.prepared = undefined));
    return this.prepared;
  }
}

/** Every rule of one bridge network, in the order they are made. */
function networkRules(network: NetworkRecord): NetworkRule[] {
  const br = network.bridgeName;
  if (network.driver !== 'bridge' || br === undefined) return [];
  const subnets = allocatedPools(network)
    .map((p) => p.pool.subnet)
    .filter((s) => !s.includes(':'));
  const filter = (chain: string, rule: string[]): NetworkRule => ({ table: 'filter', chain, rule });
  const rules: NetworkRule[] = [];
  if (network.internal) {
    for (const subnet of subnets) {
      rules.push(filter(ISOLATION_1, ['!', '-s', subnet, '-o', br, '-j', 'DROP']), filter(ISOLATION_1, ['!', '-d', subnet, '-i', br, '-j', 'DROP']));
    }
  } else {
    rules.push(
      filter(ISOLATION_1, ['-i', br, '!', '-o', br, '-j', ISOLATION_2]),
      filter(ISOLATION_2, ['-o', br, '-j', 'DROP']),
      filter(FORWARD, ['-o', br, '-m', 'conntrack', '--ctstate', 'RELATED,ESTABLISHED,DNAT', '-j', 'ACCEPT']),
      filter(FORWARD, ['-i', br, '!', '-o', br, '-j', 'ACCEPT']),
    );
    for (const subnet of subnets) rules.push({ table: 'nat', chain: POSTROUTING, rule: ['-s', subnet, '!', '-o', br, '-j', 'MASQUERADE'] });
  }
  const icc = network.options[ICC_OPTION] !== 'false';
  rules.push(filter(FORWARD, ['-i', br, '-o', br, '-j', icc ? 'ACCEPT' : 'DROP']));
  return rules;
}
