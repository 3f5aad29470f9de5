// A new network's record from a NetworkCreate request, with every check dockerd 20.10 makes, in its
// order and words: the daemon's (predefined names, duplicates, IPAM entries), libnetwork's
// controller (name, driver, scope, ingress), its IPAM allocation, then the driver's. On a swarm
// manager an overlay network, or any of scope swarm, is the swarm's to make: libnetwork's
// ManagerRedirectError, answered here as 'swarm'.
import { randomBytes } from 'node:crypto';
import { conflict, EngineError, NOT_SWARM_MANAGER_MESSAGE, notFound } from '../errors.js';
import { formatRfc3339Nano, nowNanos } from '../lib/timestamp.js';
import type { NetworkCreateRequest } from './create-request.js';
import { checkDriverConfig } from './driver-config.js';
import { IpNet } from './ip-net.js';
import type { HeldPool, Ipam } from './ipam.js';
import { allocatePools, splitIpamConfig } from './network-pools.js';
import { allocatedPools, isPredefined, type NetworkDriver, type NetworkRecord } from './network-record.js';

export interface CreateContext {
  networks: readonly NetworkRecord[];
  ipam: Ipam;
  /** the addresses taken in a subnet, by every network on it */
  usedIn(subnet: IpNet): Set<bigint>;
  links(): string[];
  /** this node's part in a swarm: a manager makes swarm networks, a worker may not */
  swarmRole: 'manager' | 'worker' | 'none';
}

/** The drivers of local networks berth plumbs, as /info lists them. */
export const LOCAL_DRIVERS: readonly string[] = ['bridge', 'host', 'ipvlan', 'macvlan', 'null'];

export function buildNetwork(req: NetworkCreateRequest, ctx: CreateContext): { record: NetworkRecord; warning: string } | 'swarm' {
  if (isPredefined(req)) throw new EngineError('forbidden', `operation is not permitted on predefined ${req.name} network `);
  let warning = '';
  const sameName = ctx.networks.find((n) => n.name === req.name);
  if (sameName !== undefined) {
    // without CheckDuplicate dockerd makes a second network of the name and only warns
    if (req.checkDuplicate) throw conflict(`network with name ${req.name} already exists`);
    warning = `Network with name ${req.name} (id : ${sameName.id}) already exists`;
  }
  const driver = req.driver || 'bridge';
  const entries = splitIpamConfig(req.ipam?.config ?? []);
  if (req.configOnly) throw new EngineError('notImplemented', 'berth does not support config-only networks');
  if (req.name.trim() === '') throw new EngineError('system', `invalid name: ${req.name}`);
  if (driver !== 'overlay' && !LOCAL_DRIVERS.includes(driver)) throw notFound(`plugin "${driver}" not found`);
  if (driver === 'overlay' && req.scope === 'local') throw new EngineError('forbidden', 'cannot downgrade network scope for overlay networks');
  if (req.ingress && driver !== 'overlay') throw new EngineError('forbidden', 'Ingress network can only be global scope network');
  if (driver === 'overlay' || req.scope === 'swarm') {
    if (ctx.swarmRole === 'manager') return 'swarm';
    if (ctx.swarmRole === 'worker') throw new EngineError('forbidden', 'Cannot create a multi-host network from a worker node. Please create the network from a manager node.');
  }
  if (req.scope === 'swarm') throw new EngineError('forbidden', 'cannot create a swarm scoped network when swarm is not active');
  if (driver === 'overlay') throw new EngineError('system', NOT_SWARM_MANAGER_MESSAGE);
  if (req.configFrom) throw notFound(`configuration network ${JSON.stringify(req.configFrom)} does not exist`);

  const id = randomBytes(32).toString('hex');
  const special = driver === 'host' || driver === 'null';
  const ipamDriver = req.ipam?.driver || 'default';
  if (!special && ipamDriver !== 'default') {
    // the null IPAM driver hands out 0.0.0.0/0, which every local driver refuses
    if (ipamDriver === 'null') throw new EngineError('system', 'ipv4 pool is empty');
    throw notFound(`plugin "${ipamDriver}" not found`);
  }
  const config = special
    ? []
    : allocatePools(entries, req.enableIPv6, { ipam: ctx.ipam, held: heldPools(ctx.networks), usedIn: ctx.usedIn, networkName: req.name });
  const options = req.options ?? {};
  const subnets = (family: 4 | 6) =>
    config.flatMap((p) => {
      const net = IpNet.parse(p.subnet) as IpNet;
      return p.gateway !== undefined && net.family === family ? [net] : [];
    });
  const plumbing = checkDriverConfig({ id, driver: driver as NetworkDriver, options, ipv4: subnets(4), ipv6: subnets(6) }, ctx.networks, ctx.links);
  // any other scope has no store to go in without swarm, which dockerd finds last
  if (req.scope !== '' && req.scope !== 'local') throw new EngineError('system', NOT_SWARM_MANAGER_MESSAGE);

  const record: NetworkRecord = {
    id,
    name: req.name,
    driver: driver as NetworkDriver,
    scope: 'local',
    created: formatRfc3339Nano(nowNanos()),
    internal: req.internal,
    attachable: req.attachable,
    enableIPv6: req.enableIPv6,
    ipam: { driver: 'default', options: req.ipam?.options ?? null, config },
    options,
    labels: req.labels ?? {},
    ...plumbing,
  };
  return { record, warning };
}

/**
 * A swarm network this node joins for a task, as the managers gave it: its pools must not overlap
 * one of this node's networks, refused in libnetwork's words.
 */
export function joinedSwarmNetwork(swarmNetwork: NetworkRecord, ctx: Pick<CreateContext, 'networks' | 'ipam'>): NetworkRecord {
  const held = heldPools(ctx.networks);
  for (const { pool, subnet } of allocatedPools(swarmNetwork)) {
    ctx.ipam.requestPool(held, { family: subnet.family, subnet: { net: subnet, text: pool.subnet }, ipRange: pool.requested?.ipRange });
  }
  return swarmNetwork;
}

/** The pools the networks hold: those allocated, under the key dockerd's allocator files them. */
function heldPools(networks: readonly NetworkRecord[]): HeldPool[] {
  return networks.flatMap((n) =>
    n.ipam.config.flatMap((p) => (p.gateway === undefined ? [] : [{ subnet: IpNet.parse(p.subnet) as IpNet, ipRange: p.requested?.ipRange }])),
  );
}
