// The network area's records, over a data root of the test's own and a host given
// by the test: the records and their checks, endpoints, and what a restart finds.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { EngineError } from '../errors.js';
import { EventBus } from '../events/event-bus.js';
import { FilterArgs } from '../lib/filters.js';
import { decodeNetworkCreate } from './create-request.js';
import { openNetworkRecords, type NetworkRecordsDeps } from './network-records.js';
import type { HostNetwork } from './host-network.js';
import { IpNet } from './ip-net.js';
import type { NetworkRecord } from './network-record.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'berth-networks-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let roots = 0;

const host: HostNetwork = { networks: () => [IpNet.parse('192.168.0.0/20') as IpNet], links: () => ['lo', 'eth0'] };

/** The records and the service, with the routes' calls as the network area's api makes them off a swarm. */
async function records(deps: NetworkRecordsDeps) {
  const service = await openNetworkRecords(deps);
  const api = {
    list: (filters: FilterArgs) => service.list(filters, []),
    inspect: (term: string, scope: string) => service.inspect(term, scope, []),
    async create(body: unknown) {
      const made = await service.create(decodeNetworkCreate(body), 'none');
      assert.notEqual(made, 'swarm');
      return made as Exclude<typeof made, 'swarm'>;
    },
    remove: async (term: string) => void (await service.remove(term)),
    prune: async (filters: FilterArgs) => (await service.prune(filters)).map((n) => n.name),
  };
  return { service, api };
}

async function area(dataRoot = path.join(scratch, `root-${roots++}`), events = new EventBus()) {
  return { dataRoot, events, ...(await await records({ dataRoot, events, host })) };
}

async function failure(fn: () => unknown): Promise<{ kind: string; message: string }> {
  try {
    await fn();
  } catch (err) {
    assert.ok(err instanceof EngineError, String(err));
    return { kind: err.kind, message: err.message };
  }
  assert.fail('no error');
}

const container = (n: number) => ({ id: String(n).repeat(64).slice(0, 64), name: `c${n}` });
const noSettings = { aliases: [], links: [] };

describe('the network area', () => {
  it('makes bridge, host and none at the first start and keeps their IDs', async () => {
    const a = await area();
    const first = a.api.list(FilterArgs.empty()).map((v) => [v.network.name, v.network.id, v.network.driver]);
    assert.deepEqual(first.map(([name, , driver]) => [name, driver]), [['bridge', 'bridge'], ['host', 'host'], ['none', 'null']]);
    const bridge = a.api.inspect('bridge', '').network;
    assert.deepEqual(bridge.ipam.config, [{ subnet: '172.17.0.0/16', gateway: '172.17.0.1', requested: { subnet: '172.17.0.0/16', gateway: '172.17.0.1' } }]);
    assert.equal(bridge.bridgeName, 'berth0');
    const again = await records({ dataRoot: a.dataRoot, events: a.events, host });
    assert.deepEqual(again.api.list(FilterArgs.empty()).map((v) => [v.network.name, v.network.id, v.network.driver]), first);
  });

  it("follows the daemon's bip and bridge settings for the default bridge, keeping its ID", async () => {
    const a = await area();
    const id = a.api.inspect('bridge', '').network.id;
    const b = await records({ dataRoot: a.dataRoot, events: a.events, host, defaultBridge: { bip: '10.99.0.1/24', bridgeName: 'br-main' } });
    const bridge = b.api.inspect('bridge', '').network;
    assert.equal(bridge.id, id);
    assert.deepEqual(bridge.ipam.config[0], { subnet: '10.99.0.0/24', gateway: '10.99.0.1', requested: { subnet: '10.99.0.0/24', gateway: '10.99.0.1' } });
    assert.equal(bridge.options['com.docker.network.bridge.name'], 'br-main');
  });

  it('saves each network before answering, and a restart finds it as it was', async () => {
    const a = await area();
    const { id } = await a.api.create({ Name: 'app', Labels: { a: 'b' }, Options: { 'com.docker.network.driver.mtu': '1400' } });
    const file = path.join(a.dataRoot, 'network', 'networks', `${id}.json`);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(saved.name, 'app');
    assert.equal(saved.bridgeName, `br-${id.slice(0, 12)}`);
    assert.deepEqual(saved.ipam.config, [{ subnet: '172.18.0.0/16', gateway: '172.18.0.1' }]);
    // what an interrupted write leaves is swept
    writeFileSync(path.join(a.dataRoot, 'network', 'networks', `.${id}.json.tmp-abc`), '{');
    const b = await records({ dataRoot: a.dataRoot, events: a.events, host });
    assert.deepEqual(b.api.inspect('app', '').network, a.api.inspect('app', '').network);
    assert.ok(!readdirSync(path.join(a.dataRoot, 'network', 'networks')).some((n) => n.startsWith('.')));
    await b.api.remove(id.slice(0, 10));
    assert.throws(() => readFileSync(file), /ENOENT/);
  });

  it('checks a request in dockerd\'s order', async () => {
    const a = await area();
    await a.api.create({ Name: 'dup' });
    const cases: Array<[unknown, string, string]> = [
      [{ Name: 'bridge' }, 'forbidden', 'operation is not permitted on predefined bridge network '],
      [{ Name: 'default' }, 'forbidden', 'operation is not permitted on predefined default network '],
      [{ Name: 'dup', CheckDuplicate: true }, 'conflict', 'network with name dup already exists'],
      [{ Name: '', IPAM: { Config: [{ Subnet: 'bad' }] } }, 'system', 'Invalid subnet bad : invalid CIDR address: bad'],
      [{ Name: ' ', Driver: 'foo' }, 'system', 'invalid name:  '],
      [{ Name: 'x', Driver: 'foo' }, 'notFound', 'plugin "foo" not found'],
      [{ Name: 'x', Driver: 'overlay', Scope: 'local' }, 'forbidden', 'cannot downgrade network scope for overlay networks'],
      [{ Name: 'x', Driver: 'host', Ingress: true }, 'forbidden', 'Ingress network can only be global scope network'],
      [{ Name: 'x', Driver: 'macvlan', Scope: 'swarm' }, 'forbidden', 'cannot create a swarm scoped network when swarm is not active'],
      [{ Name: 'x', Driver: 'overlay' }, 'system', 'This node is not a swarm manager. Use "docker swarm init" or "docker swarm join" to connect this node to swarm and try again.'],
      [{ Name: 'x', ConfigFrom: { Network: 'nosuch' } }, 'notFound', 'configuration network "nosuch" does not exist'],
      [{ Name: 'x', IPAM: { Driver: 'foo' } }, 'notFound', 'plugin "foo" not found'],
      [{ Name: 'x', IPAM: { Driver: 'null' } }, 'system', 'ipv4 pool is empty'],
      [{ Name: 'x', Driver: 'host' }, 'forbidden', 'only one instance of "host" network is allowed'],
      [{ Name: 'x', Driver: 'null', IPAM: { Config: [{ Subnet: '10.60.0.0/16', Gateway: 'bad' }] } }, 'forbidden', 'only one instance of "null" network is allowed'],
      [{ Name: 'x', IPAM: { Config: [{ Subnet: '10.60.0.0/16', Gateway: 'bad' }] } }, 'system', 'invalid gateway address bad in Ipam configuration'],
      [{ Name: 'x', EnableIPv6: true }, 'notFound', 'could not find an available, non-overlapping IPv6 address pool among the defaults to assign to the network'],
      [{ Name: 'x', IPAM: { Config: [{ Subnet: '10.42.0.0/16' }, { Subnet: '10.42.0.0/16' }] } }, 'forbidden', 'Pool overlaps with other one on this address space'],
      [{ Name: 'x', IPAM: { Config: [{ Subnet: '10.43.0.0/16' }, { Subnet: '10.44.0.0/16' }] } }, 'forbidden', "bridge driver doesn't support multiple subnets"],
      [{ Name: 'x', Options: { 'com.docker.network.driver.mtu': 'abc' } }, 'system', 'failed to parse com.docker.network.driver.mtu value: abc (strconv.Atoi: parsing "abc": invalid syntax)'],
      [{ Name: 'x', Options: { 'com.docker.network.bridge.enable_icc': 'maybe' } }, 'system', 'failed to parse com.docker.network.bridge.enable_icc value: maybe (strconv.ParseBool: parsing "maybe": invalid syntax)'],
      [{ Name: 'x', Options: { 'com.docker.network.bridge.host_binding_ipv4': 'bad' } }, 'system', 'failed to parse com.docker.network.bridge.host_binding_ipv4 value: bad (nil ip)'],
      [{ Name: 'x', Options: { 'com.docker.network.driver.mtu': '-5' } }, 'system', 'invalid MTU number: -5'],
      [{ Name: 'x', Options: { 'com.docker.network.bridge.name': 'this-name-is-way-too-long' } }, 'system', 'failed to check bridge interface existence: numerical result out of range'],
      [{ Name: 'x', Scope: 'global' }, 'system', 'This node is not a swarm manager. Use "docker swarm init" or "docker swarm join" to connect this node to swarm and try again.'],
      [{ Name: 'x', Driver: 'macvlan', Options: { macvlan_mode: 'foo' } }, 'system', "requested macvlan mode 'foo' is not valid, 'bridge' mode is the macvlan driver default"],
      [{ Name: 'x', Driver: 'ipvlan', Options: { ipvlan_mode: 'l9' } }, 'system', "requested ipvlan mode 'l9' is not valid, 'l2' mode is the ipvlan driver default"],
      [{ Name: 'x', Driver: 'macvlan', Options: { parent: 'lo' } }, 'system', 'loopback interface is not a valid macvlan parent link'],
      [{ Name: 'x', Driver: 'macvlan', Options: { parent: 'nosuch0' } }, 'system', 'invalid subinterface vlan name nosuch0, example formatting is eth0.10'],
      [{ Name: 'x', Driver: 'macvlan', Options: { parent: 'nosuch0.5' } }, 'system', '-o parent interface does was not found on the host: nosuch0'],
      [{ Name: 'x', Driver: 'macvlan', Options: { parent: 'eth0.5000' } }, 'system', 'vlan id must be between 1-4094, received: 5000'],
    ];
    for (const [body, kind, message] of cases) assert.deepEqual(await failure(() => a.api.create(body)), { kind, message }, JSON.stringify(body));
    assert.deepEqual(a.api.list(FilterArgs.empty()).map((v) => v.network.name), ['bridge', 'host', 'none', 'dup'], 'a refused network leaves nothing');
  });

  it('makes a second network of a name without CheckDuplicate, with a warning, and then finds the name ambiguous', async () => {
    const a = await area();
    const first = await a.api.create({ Name: 'twin' });
    const second = await a.api.create({ Name: 'twin' });
    assert.equal(second.warning, `Network with name twin (id : ${first.id}) already exists`);
    assert.deepEqual(await failure(() => a.api.inspect('twin', '')), { kind: 'invalidParameter', message: '2 matches found based on name: network twin is ambiguous' });
    assert.deepEqual(await failure(() => a.api.remove('twin')), { kind: 'invalidParameter', message: 'network twin is ambiguous (2 matches found based on name)' });
    assert.deepEqual(await failure(() => a.service.find('twin')), { kind: 'invalidParameter', message: 'network twin is ambiguous (2 matches found on name)' });
    assert.equal(a.api.inspect(first.id, '').network.id, first.id);
    assert.deepEqual(await failure(() => a.api.inspect('nosuch', '')), { kind: 'notFound', message: 'network nosuch not found' });
    assert.deepEqual(await failure(() => a.api.inspect(first.id, 'swarm')), { kind: 'notFound', message: `network ${first.id} not found` });
  });

  it('keeps the IPAM entries as written, allocates a gateway from the range, and IPv6 only when enabled', async () => {
    const a = await area();
    const { id } = await a.api.create({
      Name: 'ranged',
      IPAM: { Config: [{ Subnet: '10.45.0.5/16', IPRange: '10.45.1.0/24', AuxiliaryAddresses: { a: '10.45.1.1' } }, { Subnet: 'fd00:45::/64' }] },
    });
    assert.deepEqual(a.api.inspect(id, '').network.ipam.config, [
      { subnet: '10.45.0.0/16', gateway: '10.45.1.0', requested: { subnet: '10.45.0.5/16', ipRange: '10.45.1.0/24', auxAddresses: { a: '10.45.1.1' } } },
      { subnet: 'fd00:45::/64', requested: { subnet: 'fd00:45::/64' } },
    ]);
    const v6 = await a.api.create({ Name: 'six', EnableIPv6: true, IPAM: { Config: [{ Subnet: 'fd00:45::/64', Gateway: 'fd00:45::100' }] } });
    assert.deepEqual(a.api.inspect(v6.id, '').network.ipam.config, [
      { subnet: '172.18.0.0/16', gateway: '172.18.0.1' },
      { subnet: 'fd00:45::/64', gateway: 'fd00:45::100', requested: { subnet: 'fd00:45::/64', gateway: 'fd00:45::100' } },
    ]);
  });

  it('refuses a bridge that clashes with another, the default one included', async () => {
    const a = await area();
    const { id } = await a.api.create({ Name: 'named', Options: { 'com.docker.network.bridge.name': 'br-x' } });
    const clash = await failure(() => a.api.create({ Name: 'again', Options: { 'com.docker.network.bridge.name': 'br-x' } }));
    assert.equal(clash.kind, 'forbidden');
    assert.match(clash.message, new RegExp(`^cannot create network [0-9a-f]{64} \\(br-x\\): conflicts with network ${id} \\(br-x\\): networks have same bridge name$`));
    assert.match((await failure(() => a.api.create({ Name: 'b0', Options: { 'com.docker.network.bridge.name': 'berth0' } }))).message, /networks have same bridge name$/);
    await a.api.create({ Name: 'sub', IPAM: { Config: [{ Subnet: '10.10.0.0/16', IPRange: '10.10.1.0/24' }] } });
    assert.match((await failure(() => a.api.create({ Name: 'sub2', IPAM: { Config: [{ Subnet: '10.10.0.0/16', IPRange: '10.10.2.0/24' }] } }))).message, /networks have overlapping IPv4$/);
  });

  it('records macvlan and ipvlan networks with their parent, one network per parent', async () => {
    const a = await area();
    const m = await a.api.create({ Name: 'mv', Driver: 'macvlan', Options: { parent: 'eth0' }, IPAM: { Config: [{ Subnet: '10.70.0.0/24' }] } });
    assert.equal(a.api.inspect(m.id, '').network.parent, 'eth0');
    assert.deepEqual(await failure(() => a.api.create({ Name: 'mv2', Driver: 'macvlan', Options: { parent: 'eth0' } })), {
      kind: 'system',
      message: `network dm-${m.id.slice(0, 12)} is already using parent interface eth0`,
    });
    const vlan = await a.api.create({ Name: 'mv3', Driver: 'macvlan', Options: { parent: 'eth0.10' } });
    assert.equal(a.api.inspect(vlan.id, '').network.parent, 'eth0.10');
    const dummy = await a.api.create({ Name: 'iv', Driver: 'ipvlan' });
    assert.equal(a.api.inspect(dummy.id, '').network.parent, `di-${dummy.id.slice(0, 12)}`);
  });

  it("skips the subnets other networks and the host's routes hold", async () => {
    const a = await area();
    await a.api.create({ Name: 'mine', IPAM: { Config: [{ Subnet: '172.18.0.0/16' }] } });
    const subnets: string[] = [];
    for (let i = 0; i < 15; i++) subnets.push(a.api.inspect((await a.api.create({ Name: `n${i}` })).id, '').network.ipam.config[0].subnet);
    assert.equal(subnets[0], '172.19.0.0/16');
    assert.equal(subnets[12], '172.31.0.0/16');
    // the host reaches 192.168.0.0/20
    assert.deepEqual(subnets.slice(13), ['192.168.16.0/20', '192.168.32.0/20']);
  });

  it('gives endpoints the lowest free address, the MAC dockerd derives, and the next interface', async () => {
    const a = await area();
    const { id } = await a.api.create({ Name: 'e', IPAM: { Config: [{ Subnet: '10.50.0.0/24', IPRange: '10.50.0.128/25', AuxiliaryAddresses: { a: '10.50.0.130' } }] } });
    const net = a.service.find('e');
    const e1 = await a.service.allocateEndpoint(net, container(1), noSettings);
    assert.deepEqual({ ...e1, id: '' }, {
      id: '',
      networkId: id,
      containerId: container(1).id,
      containerName: 'c1',
      ifName: 'eth0',
      macAddress: '02:42:0a:32:00:81',
      ipv4Address: '10.50.0.129/24',
      gateway: '10.50.0.128',
      aliases: [],
      links: [],
      ipamConfig: null,
    });
    assert.ok(readdirSync(path.join(a.dataRoot, 'network', 'endpoints')).includes(`${e1.id}.json`), 'saved before it is returned');
    const e2 = await a.service.allocateEndpoint(net, container(2), { ipv4: '10.50.0.5', aliases: ['web'], links: ['c1:one'] });
    assert.equal(e2.ipv4Address, '10.50.0.5/24');
    assert.deepEqual(e2.ipamConfig, { ipv4Address: '10.50.0.5' });
    assert.equal((await a.service.allocateEndpoint(net, container(3), noSettings)).ipv4Address, '10.50.0.131/24', 'the aux address is skipped');
    for (const taken of ['10.50.0.129', '10.50.0.130', '10.50.0.128', '10.50.0.255']) {
      assert.deepEqual(await failure(() => a.service.allocateEndpoint(net, container(4), { ...noSettings, ipv4: taken })), { kind: 'forbidden', message: 'Address already in use' });
    }
    assert.deepEqual(await failure(() => a.service.allocateEndpoint(net, container(4), { ...noSettings, ipv4: '10.51.0.5' })), {
      kind: 'system',
      message: "Invalid address 10.51.0.5: It does not belong to any of this network's subnets",
    });
    assert.deepEqual(await failure(() => a.service.allocateEndpoint(net, container(1), noSettings)), { kind: 'forbidden', message: 'endpoint with name c1 already exists in network e' });
    assert.deepEqual(await failure(() => a.service.allocateEndpoint(net, container(4), { ...noSettings, ipv6: 'fd00::5' })), {
      kind: 'invalidParameter',
      message: 'user specified IP address is supported only when connecting to networks with user configured subnets',
    });
    assert.deepEqual(await failure(() => a.service.allocateEndpoint(a.service.find('bridge'), container(4), { ...noSettings, ipv4: '172.17.0.9' })), {
      kind: 'invalidParameter',
      message: 'user specified IP address is supported on user defined networks only',
    });
    const other = await a.service.allocateEndpoint(a.service.find('bridge'), { ...container(1), macAddress: '02:00:00:00:00:09' }, noSettings);
    assert.deepEqual([other.ifName, other.ipv4Address, other.macAddress, other.gateway], ['eth1', '172.17.0.2/16', '02:00:00:00:00:09', '172.17.0.1']);
    assert.deepEqual(a.service.endpointsOf(container(1).id).map((e) => e.ifName), ['eth0', 'eth1']);

    await a.service.releaseEndpoint(e1.id);
    assert.equal((await a.service.allocateEndpoint(net, container(5), noSettings)).ipv4Address, '10.50.0.129/24', 'a released address is free again');
    await a.service.releaseEndpoint(e1.id);
  });

  it('gives the gateway the driver gives: a bridge its own or the aux DefaultGatewayIPv4, macvlan none when internal', async () => {
    const a = await area();
    await a.api.create({ Name: 'gw', IPAM: { Config: [{ Subnet: '10.71.0.0/24', AuxiliaryAddresses: { DefaultGatewayIPv4: '10.71.0.254' } }] } });
    assert.equal((await a.service.allocateEndpoint(a.service.find('gw'), container(1), noSettings)).gateway, '10.71.0.254');
    await a.api.create({ Name: 'int', Internal: true });
    assert.equal((await a.service.allocateEndpoint(a.service.find('int'), container(1), noSettings)).gateway, '172.18.0.1');
    await a.api.create({ Name: 'mvi', Driver: 'macvlan', Internal: true, IPAM: { Config: [{ Subnet: '10.72.0.0/24' }] } });
    const mv = await a.service.allocateEndpoint(a.service.find('mvi'), container(1), noSettings);
    assert.deepEqual([mv.ipv4Address, mv.gateway, mv.macAddress], ['10.72.0.2/24', undefined, '02:42:0a:48:00:02']);
    await a.api.create({ Name: 'iv', Driver: 'ipvlan', IPAM: { Config: [{ Subnet: '10.73.0.0/24' }] } });
    const iv = await a.service.allocateEndpoint(a.service.find('iv'), container(1), noSettings);
    assert.deepEqual([iv.ipv4Address, iv.gateway, iv.macAddress], ['10.73.0.2/24', '10.73.0.1', '']);
    assert.deepEqual(await failure(() => a.service.allocateEndpoint(a.service.find('iv'), { ...container(2), macAddress: '02:00:00:00:00:01' }, noSettings)), {
      kind: 'system',
      message: 'ipvlan interfaces do not support custom mac address assignment',
    });
  });

  it('gives IPv6 addresses on an IPv6 network, and none on host and none', async () => {
    const a = await area();
    await a.api.create({ Name: 'six', EnableIPv6: true, IPAM: { Config: [{ Subnet: 'fd00:9::/64' }] } });
    const e = await a.service.allocateEndpoint(a.service.find('six'), container(1), noSettings);
    assert.deepEqual([e.ipv4Address, e.ipv6Address, e.ipv6Gateway, e.macAddress], ['172.18.0.2/16', 'fd00:9::2/64', 'fd00:9::1', '02:42:ac:12:00:02']);
    const h = await a.service.allocateEndpoint(a.service.find('host'), container(2), noSettings);
    assert.deepEqual([h.ifName, h.macAddress, h.ipv4Address], ['', '', undefined]);
  });

  it('keeps a removed network under removing/ until its plumbing is undone: a restart meanwhile lists it no more and finds the removal to finish', async () => {
    const a = await area();
    const { id } = await a.api.create({ Name: 'going' });
    const removing = path.join(a.dataRoot, 'network', 'removing', `${id}.json`);
    const network = await a.service.remove('going');
    assert.equal(JSON.parse(readFileSync(removing, 'utf8')).name, 'going');
    // the daemon is killed before the bridge and rules went
    const b = await records({ dataRoot: a.dataRoot, events: a.events, host });
    assert.deepEqual(b.api.list(FilterArgs.empty()).map((v) => v.network.name), ['bridge', 'host', 'none']);
    assert.deepEqual(b.service.unfinishedRemovals().map((n) => n.id), [id]);
    await b.service.finishRemoval(network);
    assert.throws(() => readFileSync(removing), /ENOENT/);
    assert.deepEqual((await records({ dataRoot: a.dataRoot, events: a.events, host })).service.unfinishedRemovals(), []);
    // killed between the removal's two writes: the record in both places is a removal begun
    const { id: other } = await b.api.create({ Name: 'twice' });
    const saved = readFileSync(path.join(a.dataRoot, 'network', 'networks', `${other}.json`));
    writeFileSync(path.join(a.dataRoot, 'network', 'removing', `${other}.json`), saved);
    const c = await records({ dataRoot: a.dataRoot, events: a.events, host });
    assert.ok(!c.api.list(FilterArgs.empty()).some((v) => v.network.id === other));
    assert.deepEqual(c.service.unfinishedRemovals().map((n) => n.id), [other]);
  });

  const swarmNetwork = (subnet = '10.0.1.0/24', gateway = '10.0.1.1'): NetworkRecord => ({
    id: 'iu02gp1z1ecyoakji4uopih4w',
    name: 'st_default',
    driver: 'overlay',
    scope: 'swarm',
    created: '2026-11-26T11:22:22.351866013Z',
    internal: false,
    attachable: false,
    enableIPv6: false,
    ipam: { driver: 'default', options: null, config: [{ subnet, gateway, requested: { subnet, gateway } }] },
    options: { 'com.docker.network.driver.overlay.vxlanid_list': '4097' },
    labels: { 'com.docker.stack.namespace': 'st' },
  });

  it('lists a manager\'s swarm networks before its own, one per ID, and finds a name in either', async () => {
    const a = await area();
    const swarm = [swarmNetwork()];
    const listed = a.service.list(FilterArgs.empty(), swarm);
    assert.deepEqual(listed.map((v) => [v.network.name, v.endpoints === undefined]), [['st_default', true], ['bridge', false], ['host', false], ['none', false]]);
    assert.deepEqual(a.service.list(FilterArgs.fromJson('{"scope":["swarm"]}'), swarm).map((v) => v.network.name), ['st_default']);
    assert.deepEqual(a.service.list(FilterArgs.fromJson('{"label":["com.docker.stack.namespace=st"]}'), swarm).map((v) => v.network.name), ['st_default']);
    assert.deepEqual(a.service.list(FilterArgs.fromJson('{"driver":["bridge"]}'), swarm).map((v) => v.network.name), ['bridge']);
    assert.equal(a.service.inspect('st_default', '', swarm).network, swarm[0]);
    assert.equal(a.service.inspect('iu02', 'swarm', swarm).network, swarm[0]);
    assert.deepEqual(await failure(() => a.service.inspect('st_default', 'local', swarm)), { kind: 'notFound', message: 'network st_default not found' });
    assert.equal(a.service.toRemove('st_default', swarm).scope, 'swarm');
  });

  it('keeps a swarm network its tasks join as the managers gave it, with its ID, name and pools', async () => {
    const a = await area();
    const swarm = swarmNetwork();
    await a.service.joinSwarmNetwork(swarm);
    await a.service.joinSwarmNetwork(swarm);
    const record = a.service.find(swarm.id);
    assert.deepEqual(record, swarm);
    // off a manager it shows as the swarm network, with its endpoints; on one, once
    const endpoint = await a.service.allocateEndpoint(record, container(1), { aliases: ['st_web', 'web'], links: [] });
    assert.deepEqual([endpoint.ipv4Address, endpoint.gateway], ['10.0.1.2/24', '10.0.1.1']);
    const off = a.service.list(FilterArgs.fromJson('{"scope":["swarm"]}'), []);
    assert.deepEqual(off.map((v) => [v.network, v.endpoints?.length]), [[swarm, 1]]);
    assert.deepEqual(a.service.list(FilterArgs.empty(), [swarm]).filter((v) => v.network.id === swarm.id).length, 1);
    assert.equal(a.service.inspect('st_default', '', [swarm]).endpoints?.length, 1, 'this node\'s view first: its containers');
    // the tasks' alone to remove: not with an endpoint on it, nor by a removal or prune of the node's networks
    assert.equal(await a.service.leaveSwarmNetwork(swarm.id), undefined);
    assert.deepEqual(await failure(() => a.service.remove('st_default')), { kind: 'notFound', message: 'network st_default not found' });
    await a.service.releaseEndpoint(endpoint.id);
    assert.deepEqual(await a.api.prune(FilterArgs.empty()), []);
    assert.equal((await a.service.leaveSwarmNetwork(swarm.id))?.id, swarm.id);
    assert.deepEqual(a.service.list(FilterArgs.empty(), []).map((v) => v.network.name), ['bridge', 'host', 'none']);
    // one that overlaps a network of this node is refused in libnetwork's words
    await a.api.create({ Name: 'mine', IPAM: { Config: [{ Subnet: '10.0.5.0/24' }] } });
    assert.deepEqual(await failure(() => a.service.joinSwarmNetwork(swarmNetwork('10.0.5.0/24', '10.0.5.1'))), { kind: 'forbidden', message: 'Pool overlaps with other one on this address space' });
  });

  it('makes docker_gwbridge once, as libnetwork makes it, however many containers ask at once', async () => {
    const events = new EventBus();
    const a = await area(undefined, events);
    const { live } = events.subscribe();
    const [first, second] = await Promise.all([a.service.gatewayBridge(), a.service.gatewayBridge()]);
    assert.equal(first, second);
    assert.equal(first.name, 'docker_gwbridge');
    assert.equal(first.driver, 'bridge');
    assert.deepEqual(first.options, {
      'com.docker.network.bridge.name': 'docker_gwbridge',
      'com.docker.network.bridge.enable_icc': 'false',
      'com.docker.network.bridge.enable_ip_masquerade': 'true',
    });
    assert.equal((await a.service.gatewayBridge()).id, first.id, 'and later finds the one it made');
    live.close();
    const created = [];
    for await (const ev of live) if (ev.action === 'create') created.push(ev.actor.id);
    assert.deepEqual(created, [first.id]);
    assert.deepEqual(a.api.list(FilterArgs.empty()).map((v) => v.network.name), ['bridge', 'host', 'none', 'docker_gwbridge']);
  });

  it('keeps a network with endpoints, and a predefined one, from removal and prune', async () => {
    const a = await area();
    const used = await a.api.create({ Name: 'used', Labels: { keep: '1' } });
    await a.api.create({ Name: 'idle' });
    const endpoint = await a.service.allocateEndpoint(a.service.find('used'), container(1), noSettings);
    assert.deepEqual(await failure(() => a.api.remove('used')), {
      kind: 'forbidden',
      message: `error while removing network: network used id ${used.id} has active endpoints`,
    });
    assert.deepEqual(await failure(() => a.api.remove('bridge')), { kind: 'forbidden', message: 'bridge is a pre-defined network and cannot be removed' });
    assert.deepEqual(await a.api.prune(FilterArgs.empty()), ['idle']);
    assert.deepEqual(a.api.list(FilterArgs.fromJson('{"dangling":["true"]}')).map((v) => v.network.name), []);
    await a.service.releaseEndpoint(endpoint.id);
    assert.deepEqual(a.api.list(FilterArgs.fromJson('{"dangling":["true"]}')).map((v) => v.network.name), ['used']);
    assert.deepEqual(await a.api.prune(FilterArgs.fromJson('{"label!":["keep"]}')), []);
    assert.deepEqual(await a.api.prune(FilterArgs.empty()), ['used']);
  });

  it('publishes create, destroy and prune', async () => {
    const events = new EventBus();
    const a = await area(undefined, events);
    const { live } = events.subscribe();
    const { id } = await a.api.create({ Name: 'ev', Driver: 'macvlan' });
    await a.api.remove('ev');
    await a.api.prune(FilterArgs.empty());
    live.close();
    const seen = [];
    for await (const ev of live) seen.push([ev.type, ev.action, ev.actor.id, ev.actor.attributes]);
    assert.deepEqual(seen, [
      ['network', 'create', id, { name: 'ev', type: 'macvlan' }],
      ['network', 'destroy', id, { name: 'ev', type: 'macvlan' }],
      ['network', 'prune', '', { reclaimed: '0' }],
    ]);
  });
});
