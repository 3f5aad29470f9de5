// The service VIPs of a task container's networks, balanced inside its own namespace (Docker
// programs every VIP of a network into each sandbox on it; it uses IPVS, which this kernel lacks):
//   nat OUTPUT → BERTH-VIPS: `-d VIP -j BERTH-VIP-<VIP>` for each VIP with backends;
//   BERTH-VIP-<VIP>: DNAT of every protocol and port to one backend at random per connection
//     (random-dnat.ts); a backend may be the container itself, which its own namespace reaches;
//   filter OUTPUT → BERTH-VIP-REJECT: a VIP with no backends refuses at once (a TCP reset, an ICMP
//     port unreachable otherwise) rather than leaving the container waiting on an address nobody has.
// DNAT in OUTPUT covers the connections the container opens, the only ones that reach a VIP.
import { applyChainSet, type ChainSet, type OwnedChain } from './chain-set.js';
import { randomDnatRules } from './random-dnat.js';

export interface ServiceVip {
  /** IPv4, no prefix */
  vip: string;
  /** the enabled tasks' addresses on the VIP's network */
  backends: readonly string[];
}

const VIPS = 'BERTH-VIPS';
const REJECT = 'BERTH-VIP-REJECT';
const vipChain = (vip: string) => `BERTH-VIP-${vip}`;

/** The chains that balance `vips`, and nothing when there are none. */
export function serviceVipChains(vips: readonly ServiceVip[]): ChainSet {
  const balanced = vips.filter((v) => v.backends.length > 0);
  const refused = vips.filter((v) => v.backends.length === 0);
  const chains: OwnedChain[] = [];
  const jumps: ChainSet['jumps'] = [];
  if (balanced.length > 0) {
    chains.push({ table: 'nat', name: VIPS, rules: balanced.map((v) => `-d ${v.vip}/32 -j ${vipChain(v.vip)}`) });
    // sorted: the same backends in another order are the same chain
    for (const v of balanced) chains.push({ table: 'nat', name: vipChain(v.vip), rules: randomDnatRules([...v.backends].sort()) });
    jumps.push({ table: 'nat', from: 'OUTPUT', rule: `-j ${VIPS}`, position: 'bottom' });
  }
  if (refused.length > 0) {
    chains.push({ table: 'filter', name: REJECT, rules: refused.flatMap((v) => [`-d ${v.vip}/32 -p tcp -j REJECT --reject-with tcp-reset`, `-d ${v.vip}/32 -j REJECT --reject-with icmp-port-unreachable`]) });
    jumps.push({ table: 'filter', from: 'OUTPUT', rule: `-j ${REJECT}`, position: 'top' });
  }
  return { owns: (chain) => chain === VIPS || chain.startsWith('BERTH-VIP-'), chains, jumps };
}

/**
 * Makes the namespace at `netns` (a task container's) balance exactly `vips`: a VIP left out loses
 * its rules, and an empty list leaves no chain. Whether anything changed.
 */
export function programServiceVips(netns: string, vips: readonly ServiceVip[]): Promise<boolean> {
  return applyChainSet(netns, serviceVipChains(vips));
}
