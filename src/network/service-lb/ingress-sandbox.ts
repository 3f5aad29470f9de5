// The routing mesh's second hop, in the ingress sandbox (Docker's ingress-sbox, where it uses
// IPVS): what the node DNATs to the sandbox on a published port goes on to one of the service's
// tasks, on any node, at the target port, with the sandbox's ingress address as its source so that
// the answers come back through it (and through the node's DNAT, which undoes the first hop):
//   nat PREROUTING → BERTH-INGRESS-SBX: `-p PROTO --dport P -j BERTH-INGRESS-SBX-PROTO-P`;
//   BERTH-INGRESS-SBX-PROTO-P: DNAT to one backend:target at random per connection (random-dnat.ts);
//   nat POSTROUTING → BERTH-INGRESS-SBX-SNAT: what was DNAT'd leaves from the ingress address;
//   filter INPUT → BERTH-INGRESS-SBX-REJECT: a port with no backends refuses at once (TCP reset,
//     ICMP port unreachable) instead of leaving the client waiting.
// The sandbox forwards between its two links: IPv4 forwarding is turned on in it.
import { setNetSysctls } from '../../runtime/sysctl.js';
import { applyChainSet, type ChainSet, type OwnedChain } from './chain-set.js';
import { randomDnatRules } from './random-dnat.js';

export type IngressProtocol = 'tcp' | 'udp';

export interface IngressTarget {
  protocol: IngressProtocol;
  publishedPort: number;
  targetPort: number;
  /** the service's enabled tasks' addresses on the ingress network, every node's */
  backends: readonly string[];
}

const PREFIX = 'BERTH-INGRESS-SBX';
const SNAT = `${PREFIX}-SNAT`;
const REJECT = `${PREFIX}-REJECT`;
const portChain = (t: IngressTarget) => `${PREFIX}-${t.protocol.toUpperCase()}-${t.publishedPort}`;
const portMatch = (t: { protocol: IngressProtocol; publishedPort: number }) => `-p ${t.protocol} -m ${t.protocol} --dport ${t.publishedPort}`;

/** The sandbox's chains for `targets` (none without targets); `ingressAddress` is its own on the ingress network. */
export function ingressSandboxChains(ingressAddress: string, targets: readonly IngressTarget[]): ChainSet {
  const balanced = targets.filter((t) => t.backends.length > 0);
  const refused = targets.filter((t) => t.backends.length === 0);
  const chains: OwnedChain[] = [];
  const jumps: ChainSet['jumps'] = [];
  if (balanced.length > 0) {
    chains.push({ table: 'nat', name: PREFIX, rules: balanced.map((t) => `${portMatch(t)} -j ${portChain(t)}`) });
    for (const t of balanced) chains.push({ table: 'nat', name: portChain(t), rules: randomDnatRules([...t.backends].sort().map((b) => `${b}:${t.targetPort}`), t.protocol) });
    chains.push({ table: 'nat', name: SNAT, rules: [`-m conntrack --ctstate DNAT -j SNAT --to-source ${ingressAddress}`] });
    jumps.push({ table: 'nat', from: 'PREROUTING', rule: `-j ${PREFIX}`, position: 'bottom' }, { table: 'nat', from: 'POSTROUTING', rule: `-j ${SNAT}`, position: 'bottom' });
  }
  if (refused.length > 0) {
    chains.push({ table: 'filter', name: REJECT, rules: refused.map((t) => `${portMatch(t)} -j REJECT --reject-with ${t.protocol === 'tcp' ? 'tcp-reset' : 'icmp-port-unreachable'}`) });
    jumps.push({ table: 'filter', from: 'INPUT', rule: `-j ${REJECT}`, position: 'top' });
  }
  return { owns: (chain) => chain.startsWith(PREFIX), chains, jumps };
}

/**
 * Makes the ingress sandbox at `netns` balance exactly `targets`: an empty list leaves no chain.
 * Whether its rules changed.
 */
export async function programIngressSandbox(netns: string, ingressAddress: string, targets: readonly IngressTarget[]): Promise<boolean> {
  if (targets.length > 0) await setNetSysctls(netns, { 'net.ipv4.ip_forward': '1' });
  return applyChainSet(netns, ingressSandboxChains(ingressAddress, targets));
}
