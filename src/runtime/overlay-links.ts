// The links of an overlay network's data plane, made with iproute2's `ip` and `bridge`: a bridge,
// a VXLAN device made in the node's namespace (its UDP socket stays there) and moved into the
// network's own, veth pairs whose container end is made straight in the container's namespace
// (no temporary name in the node's), and the VXLAN device's static FDB and neighbour entries. Each
// call takes the namespace it works in (a file; undefined: berthd's own). What is already as asked
// is no error, and neither is deleting what is gone, so that callers can repeat any step.
import { runCommand, type CommandResult } from './child-process.js';
import { inNetns } from './netns.js';

const LINK_TIMEOUT_MS = 10_000;

export interface VxlanSpec {
  name: string;
  vni: number;
  /** the node's data-path address, the tunnels' source */
  local: string;
  /** UDP port of the tunnels (4789) */
  port: number;
  mtu: number;
}

export interface VethSpec {
  /** the end left in `netns`, enslaved to `bridge` */
  name: string;
  bridge: string;
  /** the container's namespace (a file), where the other end is made as `ifName` */
  peerNetns: string;
  ifName: string;
  mac: string;
  /** CIDR: 10.0.1.2/24 */
  address: string;
  mtu: number;
}

/** An entry of a VXLAN device's forwarding table: frames for `mac` go to the node at `dst`. */
export interface FdbEntry {
  mac: string;
  dst: string;
}

/** A neighbour entry: `ip` is at `mac`, which the VXLAN device answers ARP with (its `proxy` flag). */
export interface NeighbourEntry {
  ip: string;
  mac: string;
}

function ip(netns: string | undefined, args: readonly string[], allowExitCodes: readonly number[] = []): Promise<CommandResult> {
  const [file, fullArgs] = inNetns(netns, 'ip', args);
  return runCommand(file, fullArgs, { timeoutMs: LINK_TIMEOUT_MS, allowExitCodes });
}

function bridge(netns: string | undefined, args: readonly string[]): Promise<CommandResult> {
  const [file, fullArgs] = inNetns(netns, 'bridge', args);
  return runCommand(file, fullArgs, { timeoutMs: LINK_TIMEOUT_MS });
}

function json<T>(r: CommandResult): T[] {
  const text = r.stdout.toString('utf8').trim();
  return text === '' ? [] : (JSON.parse(text) as T[]);
}

/** The names of the links in `netns`. */
export async function linkNames(netns: string | undefined): Promise<string[]> {
  return json<{ ifname: string }>(await ip(netns, ['-j', 'link', 'show'])).map((l) => l.ifname);
}

/** Deletes link `name` in `netns` (a veth's peer goes with it); a missing one is no error. */
export async function deleteLinkIn(netns: string | undefined, name: string): Promise<void> {
  // exit 1: "Cannot find device"
  await ip(netns, ['link', 'del', name], [1]);
}

/** A bridge `name` in `netns` with `address` (CIDR), up. */
export async function createBridge(netns: string, name: string, address: string, mtu: number): Promise<void> {
  await ip(netns, ['link', 'add', name, 'mtu', String(mtu), 'type', 'bridge']);
  await ip(netns, ['addr', 'add', address, 'dev', name]);
  await ip(netns, ['link', 'set', name, 'up']);
}

/**
 * The VXLAN device made in `nodeNetns`, moved into `netns` and enslaved to `bridge` there, up. Its
 * socket is opened at `up` in the namespace it was made in, which it keeps after the move.
 * `nolearning`: the forwarding table holds only the peers given (no address learned from whatever
 * reaches the port); `proxy`: it answers ARP from its neighbour entries, so no broadcast crosses.
 */
export async function createVxlan(nodeNetns: string | undefined, spec: VxlanSpec, netns: string, bridgeName: string): Promise<void> {
  const { name, vni, local, port, mtu } = spec;
  await ip(nodeNetns, ['link', 'add', name, 'mtu', String(mtu), 'type', 'vxlan', 'id', String(vni), 'local', local, 'dstport', String(port), 'nolearning', 'proxy']);
  try {
    await ip(nodeNetns, ['link', 'set', name, 'netns', netns]);
  } catch (err) {
    await deleteLinkIn(nodeNetns, name);
    throw err;
  }
  await ip(netns, ['link', 'set', name, 'master', bridgeName, 'up']);
}

/** A veth pair: `spec.name` in `netns` on its bridge, and `spec.ifName` in the container's namespace with its MAC and address, both up. */
export async function createVeth(netns: string, spec: VethSpec): Promise<void> {
  const mtu = String(spec.mtu);
  await ip(netns, ['link', 'add', spec.name, 'mtu', mtu, 'type', 'veth', 'peer', 'name', spec.ifName, 'address', spec.mac, 'mtu', mtu, 'netns', spec.peerNetns]);
  try {
    await ip(spec.peerNetns, ['addr', 'add', spec.address, 'dev', spec.ifName]);
    await ip(spec.peerNetns, ['link', 'set', spec.ifName, 'up']);
    await ip(netns, ['link', 'set', spec.name, 'master', spec.bridge, 'up']);
  } catch (err) {
    await deleteLinkIn(netns, spec.name);
    throw err;
  }
}

/** The entries of `dev`'s own forwarding table that send a MAC to a node (not the bridge's learned ones). */
export async function listFdb(netns: string, dev: string): Promise<FdbEntry[]> {
  const rows = json<{ mac: string; dst?: string; master?: string }>(await bridge(netns, ['-j', 'fdb', 'show', 'dev', dev]));
  return rows.filter((r) => r.dst !== undefined && r.master === undefined).map((r) => ({ mac: r.mac, dst: r.dst as string }));
}

export async function replaceFdb(netns: string, dev: string, entry: FdbEntry): Promise<void> {
  await bridge(netns, ['fdb', 'replace', entry.mac, 'dev', dev, 'dst', entry.dst, 'self', 'permanent']);
}

export async function deleteFdb(netns: string, dev: string, entry: FdbEntry): Promise<void> {
  await bridge(netns, ['fdb', 'del', entry.mac, 'dev', dev, 'dst', entry.dst, 'self']);
}

/** The permanent neighbour entries of `dev` (those berth made). */
export async function listNeighbours(netns: string, dev: string): Promise<NeighbourEntry[]> {
  const rows = json<{ dst: string; lladdr?: string; state?: string[] }>(await ip(netns, ['-j', 'neigh', 'show', 'dev', dev, 'nud', 'permanent']));
  return rows.filter((r) => r.lladdr !== undefined).map((r) => ({ ip: r.dst, mac: r.lladdr as string }));
}

export async function replaceNeighbour(netns: string, dev: string, entry: NeighbourEntry): Promise<void> {
  await ip(netns, ['neigh', 'replace', entry.ip, 'lladdr', entry.mac, 'dev', dev, 'nud', 'permanent']);
}

export async function deleteNeighbour(netns: string, dev: string, entry: NeighbourEntry): Promise<void> {
  await ip(netns, ['neigh', 'del', entry.ip, 'dev', dev]);
}
