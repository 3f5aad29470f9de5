// What each driver checks of a new network, in libnetwork's words and order (drivers/bridge,
// macvlan, ipvlan CreateNetwork), and what berth's plumbing will need of it: the bridge's name, or
// the macvlan/ipvlan parent link. Only records: nothing on the host is made or changed here.
import { EngineError } from '../errors.js';
import { parseGoBool } from '../lib/go-bool.js';
import { IpNet, parseIp } from './ip-net.js';
import type { NetworkDriver, NetworkRecord } from './network-record.js';

/** The part of a new network a driver looks at. */
export interface DriverInput {
  id: string;
  driver: NetworkDriver;
  options: Readonly<Record<string, string>>;
  /** the subnets of the allocated pools, by family */
  ipv4: IpNet[];
  ipv6: IpNet[];
}

export interface DriverResult {
  bridgeName?: string;
  parent?: string;
  /** a parent link the plumbing makes (and removes with the network): a dummy one, or the VLAN named */
  madeParent?: 'dummy' | 'vlan';
}

/** The bridge name berth's predefined network plumbs (dockerd's docker0). */
export const DEFAULT_BRIDGE_NAME = 'berth0';

/** Linux's longest interface name (IFNAMSIZ less its terminating NUL). */
const MAX_LINK_NAME = 15;

export function checkDriverConfig(input: DriverInput, others: readonly NetworkRecord[], links: () => string[]): DriverResult {
  switch (input.driver) {
    case 'bridge':
      return { bridgeName: checkBridge(input, others) };
    case 'macvlan':
    case 'ipvlan':
      return checkParent(input, others, links);
    default:
      // host and null: one network each, the predefined one (libnetwork's host and null drivers)
      throw new EngineError('forbidden', `only one instance of "${input.driver}" network is allowed`);
  }
}

const bridgeBooleans = [
  'com.docker.network.enable_ipv6',
  'com.docker.network.bridge.enable_ip_masquerade',
  'com.docker.network.bridge.enable_icc',
  'com.docker.network.bridge.inhibit_ipv4',
  'com.docker.network.bridge.default_bridge',
];
const bridgeAddresses = ['com.docker.network.bridge.host_binding_ipv4', 'com.docker.network.host_ipv4'];

function checkBridge(input: DriverInput, others: readonly NetworkRecord[]): string {
  const { options } = input;
  for (const [label, value] of Object.entries(options)) {
    if (label === 'com.docker.network.driver.mtu' && !/^[+-]?\d+$/.test(value)) {
      throw parseError(label, value, `strconv.Atoi: parsing ${JSON.stringify(value)}: invalid syntax`);
    }
    if (bridgeBooleans.includes(label) && parseGoBool(value) === undefined) {
      throw parseError(label, value, `strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
    }
    if (bridgeAddresses.includes(label) && parseIp(value) === undefined) throw parseError(label, value, 'nil ip');
  }
  const mtu = options['com.docker.network.driver.mtu'];
  if (mtu !== undefined && Number(mtu) < 0) throw new EngineError('system', `invalid MTU number: ${Number(mtu)}`);
  const bridgeName = options['com.docker.network.bridge.name'] || `br-${input.id.slice(0, 12)}`;
  if (bridgeName.length > MAX_LINK_NAME) throw new EngineError('system', 'failed to check bridge interface existence: numerical result out of range');
  if (input.ipv4.length > 1 || input.ipv6.length > 1) throw new EngineError('forbidden', "bridge driver doesn't support multiple subnets");
  for (const other of others) {
    if (other.driver !== 'bridge') continue;
    const reason = bridgeConflict(bridgeName, input, other);
    if (reason !== undefined) {
      throw new EngineError(
        'forbidden',
        `cannot create network ${input.id} (${bridgeName}): conflicts with network ${other.id} (${other.bridgeName}): ${reason}`,
      );
    }
  }
  return bridgeName;
}

/**
 * libnetwork's networkConfiguration.Conflicts. dockerd takes a clash with its default bridge for a
 * stale network and deletes that one; berth refuses, as for any other network.
 */
function bridgeConflict(bridgeName: string, input: DriverInput, other: NetworkRecord): string | undefined {
  if (other.bridgeName === bridgeName) return 'networks have same bridge name';
  const pools = (family: 4 | 6) =>
    other.ipam.config.flatMap((p) => {
      const net = IpNet.parse(p.subnet) as IpNet;
      return p.gateway !== undefined && net.family === family ? [net] : [];
    });
  if (overlapsFirst(input.ipv4, pools(4))) return 'networks have overlapping IPv4';
  if (overlapsFirst(input.ipv6, pools(6))) return 'networks have overlapping IPv6';
  return undefined;
}

/** Whether the first pools of two networks overlap: a bridge has one pool per family. */
function overlapsFirst(a: IpNet[], b: IpNet[]): boolean {
  return a.length > 0 && b.length > 0 && a[0].overlaps(b[0]);
}

const macvlanModes = ['', 'bridge', 'private', 'passthru', 'vepa'];
const ipvlanModes = ['', 'l2', 'l3'];

function checkParent(input: DriverInput, others: readonly NetworkRecord[], links: () => string[]): DriverResult {
  const { driver, options } = input;
  const mode = options[`${driver}_mode`] ?? '';
  if (driver === 'macvlan' && !macvlanModes.includes(mode)) {
    throw system(`requested macvlan mode '${mode}' is not valid, 'bridge' mode is the macvlan driver default`);
  }
  if (driver === 'ipvlan' && !ipvlanModes.includes(mode)) {
    throw system(`requested ipvlan mode '${mode}' is not valid, 'l2' mode is the ipvlan driver default`);
  }
  const asked = options.parent ?? '';
  if (asked === 'lo') throw system(`loopback interface is not a valid ${driver} parent link`);
  // no parent: a dummy link of the network's own, which only its containers share
  const parent = asked || dummyName(driver, input.id);
  for (const other of others) {
    if (other.driver === driver && other.parent === parent) {
      throw system(`network ${dummyName(driver, other.id)} is already using parent interface ${parent}`);
    }
  }
  if (asked === '') return { parent, madeParent: 'dummy' };
  if (links().includes(asked)) return { parent };
  checkVlanParent(asked, links);
  return { parent, madeParent: 'vlan' };
}

/** A parent the host lacks must name a VLAN of one it has (eth0.10), which the plumbing makes. */
function checkVlanParent(parent: string, links: () => string[]): void {
  if (!parent.includes('.')) throw system(`invalid subinterface vlan name ${parent}, example formatting is eth0.10`);
  const parts = parent.split('.');
  if (parts.length !== 2) {
    throw system(`required interface name format is: name.vlan_id, ex. eth0.10 for vlan 10, instead received ${parent}`);
  }
  const [link, vid] = parts;
  if (!/^[+-]?\d+$/.test(vid)) throw system(`unable to parse a valid vlan id from: ${vid} (ex. eth0.10 for vlan 10)`);
  if (!links().includes(link)) throw system(`-o parent interface does was not found on the host: ${link}`);
  if (Number(vid) < 1 || Number(vid) > 4094) throw system(`vlan id must be between 1-4094, received: ${Number(vid)}`);
}

function dummyName(driver: NetworkDriver, id: string): string {
  return `${driver === 'macvlan' ? 'dm-' : 'di-'}${id.slice(0, 12)}`;
}

function parseError(label: string, value: string, why: string): EngineError {
  return system(`failed to parse ${label} value: ${value} (${why})`);
}

function system(message: string): EngineError {
  return new EngineError('system', message);
}
