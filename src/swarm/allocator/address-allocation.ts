// Addresses of swarm networks' pools, for services' virtual IPs and tasks' attachments, as
// libnetwork's default IPAM gives them to swarmkit's allocator: never the subnet's own address, its
// broadcast or its gateway, from the pool's range when it names one. berth takes the lowest free
// address where libnetwork goes on after the last one given. Each address held is a key in the
// store, created in the transaction that writes its holder, so that two managers never hand out one.
import { formatIp, IpNet } from '../../network/ip-net.js';
import type { AllocatedPool } from '../networks/network-allocation.js';

export const ADDRESSES = '/allocation/addresses/';

/** `addr`: as shown, "10.0.1.2/24" */
export function addressKey(networkId: string, addr: string): string {
  return `${ADDRESSES}${networkId}/${addr.slice(0, addr.indexOf('/'))}`;
}

/** The lowest address of the network's pools whose key `held` lacks, with its prefix length ("10.0.1.2/24"); undefined when none is left. */
export function nextAddress(networkId: string, pools: readonly AllocatedPool[], held: ReadonlySet<string>): string | undefined {
  for (const pool of pools) {
    const subnet = IpNet.parse(pool.subnet)!;
    const range = pool.ipRange !== undefined ? IpNet.parse(pool.ipRange)! : subnet;
    for (let at = range.network; at <= range.last; at++) {
      if (at === subnet.network || (subnet.family === 4 && at === subnet.last)) continue;
      const addr = subnet.withPrefix({ family: subnet.family, value: at });
      if (formatIp({ family: subnet.family, value: at }) === pool.gateway || held.has(addressKey(networkId, addr))) continue;
      return addr;
    }
  }
  return undefined;
}
