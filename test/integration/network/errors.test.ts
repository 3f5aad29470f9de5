// The Network routes' answers to bad requests, byte for byte as the reference engine (dockerd
// 20.10) gave them: statuses and messages, over raw HTTP.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Berthd } from '../../helpers/berthd.js';

const SWARM_ONLY = 'This node is not a swarm manager. Use "docker swarm init" or "docker swarm join" to connect this node to swarm and try again.';

describe('Network API errors', () => {
  let d: Berthd;
  before(async () => {
    // removing a network undoes its plumbing, which is the namespace's business
    d = await Berthd.start({ netns: 'own' });
  });
  after(async () => {
    await d.stop();
  });

  async function expect(method: string, path: string, body: unknown, status: number, message?: string): Promise<unknown> {
    const r = await d.request(method, path, typeof body === 'string' ? { body, headers: { 'Content-Type': 'application/json' } } : body === undefined ? {} : { json: body });
    assert.equal(r.status, status, `${method} ${path} ${JSON.stringify(body)}: ${r.body}`);
    if (message !== undefined) assert.deepEqual(r.json(), { message }, `${method} ${path} ${JSON.stringify(body)}`);
    return r.body === '' ? undefined : r.json();
  }

  it('answers NetworkCreate as dockerd does', async () => {
    const first = (await expect('POST', '/v1.41/networks/create', { Name: 'dup' }, 201)) as { Id: string; Warning: string };
    assert.deepEqual(first.Warning, '');
    await expect('POST', '/networks/create', { Name: 'dup', CheckDuplicate: true }, 409, 'network with name dup already exists');
    const second = (await expect('POST', '/networks/create', { Name: 'dup' }, 201)) as { Id: string; Warning: string };
    assert.equal(second.Warning, `Network with name dup (id : ${first.Id}) already exists`);
    await expect('GET', '/networks/dup', undefined, 400, '2 matches found based on name: network dup is ambiguous');
    await expect('DELETE', '/networks/dup', undefined, 400, 'network dup is ambiguous (2 matches found based on name)');

    await expect('POST', '/networks/create', undefined, 400, 'got EOF while reading request body');
    await expect('POST', '/networks/create', '{bad', 400);
    await expect('POST', '/networks/create', [], 400, 'json: cannot unmarshal array into Go value of type types.NetworkCreateRequest');
    await expect('POST', '/networks/create', { Name: 5 }, 400, 'json: cannot unmarshal number into Go struct field NetworkCreateRequest.Name of type string');
    await expect('POST', '/networks/create', {}, 500, 'invalid name: ');
    for (const name of ['bridge', 'host', 'none', 'default']) {
      await expect('POST', '/networks/create', { Name: name }, 403, `operation is not permitted on predefined ${name} network `);
    }
    await expect('POST', '/networks/create', { Name: 'o', Driver: 'overlay' }, 500, SWARM_ONLY);
    await expect('POST', '/networks/create', { Name: 'o', Ingress: true }, 403, 'Ingress network can only be global scope network');
    await expect('POST', '/networks/create', { Name: 'o', Driver: 'host' }, 403, 'only one instance of "host" network is allowed');
    await expect('POST', '/networks/create', { Name: 'o', Driver: 'null' }, 403, 'only one instance of "null" network is allowed');
    await expect('POST', '/networks/create', { Name: 'o', Driver: 'foo' }, 404, 'plugin "foo" not found');
  });

  it('answers overlapping and malformed subnets as dockerd does', async () => {
    await expect('POST', '/networks/create', { Name: 's1', IPAM: { Config: [{ Subnet: '10.10.0.0/16', IPRange: '10.10.1.0/24' }] } }, 201);
    const overlap = 'Pool overlaps with other one on this address space';
    await expect('POST', '/networks/create', { Name: 's2', IPAM: { Config: [{ Subnet: '10.10.5.0/24' }] } }, 403, overlap);
    await expect('POST', '/networks/create', { Name: 's2', IPAM: { Config: [{ Subnet: '10.0.0.0/8' }] } }, 403, overlap);
    await expect('POST', '/networks/create', { Name: 's2', IPAM: { Config: [{ Subnet: '10.10.0.0/16', IPRange: '10.10.1.0/24' }] } }, 403, overlap);
    await expect('POST', '/networks/create', { Name: 's2', IPAM: { Config: [{ Subnet: '172.17.0.0/16' }] } }, 403, overlap);
    const r = await d.request('POST', '/networks/create', { json: { Name: 's2', IPAM: { Config: [{ Subnet: '10.10.0.0/16', IPRange: '10.10.2.0/24' }] } } });
    assert.equal(r.status, 403);
    assert.match((r.json() as { message: string }).message, /^cannot create network [0-9a-f]{64} \(br-[0-9a-f]{12}\): conflicts with network [0-9a-f]{64} \(br-[0-9a-f]{12}\): networks have overlapping IPv4$/);
    await expect('POST', '/networks/create', { Name: 's3', IPAM: { Config: [{ Subnet: 'bad' }] } }, 500, 'Invalid subnet bad : invalid CIDR address: bad');
    await expect('POST', '/networks/create', { Name: 's3', IPAM: { Config: [{ Subnet: '10.20.0.0/16', Gateway: '10.21.0.1' }] } }, 500, 'failed to allocate gateway (10.21.0.1): Requested address is out of range');
    await expect('POST', '/networks/create', { Name: 's3', IPAM: { Config: [{ Subnet: '10.20.0.0/16', AuxiliaryAddresses: { a: '10.21.0.1' } }] } }, 403, 'auxiliary address: (a:10.21.0.1) must belong to the master pool: 10.20.0.0/16');
  });

  it('answers inspect, delete and prune as dockerd does', async () => {
    await expect('GET', '/networks/nosuch', undefined, 404, 'network nosuch not found');
    await expect('DELETE', '/networks/nosuch', undefined, 404, 'network nosuch not found');
    for (const name of ['bridge', 'host', 'none']) await expect('DELETE', `/networks/${name}`, undefined, 403, `${name} is a pre-defined network and cannot be removed`);
    await expect('GET', '/networks/bridge?verbose=maybe', undefined, 400, 'invalid value for verbose: maybe: strconv.ParseBool: parsing "maybe": invalid syntax');
    await expect('GET', '/networks/bridge?scope=swarm', undefined, 404, 'network bridge not found');
    const bridge = (await expect('GET', '/networks/bridge?verbose=true&scope=local', undefined, 200)) as { Name: string };
    assert.equal(bridge.Name, 'bridge');
    await expect('GET', `/networks?filters=${encodeURIComponent('{"type":["foo"]}')}`, undefined, 500, "invalid filter: 'type'='foo'");
    await expect('POST', `/networks/prune?filters=${encodeURIComponent('{"until":["1h","2h"]}')}`, undefined, 500, 'more than one until filter specified');
    const pruned = (await expect('POST', '/networks/prune', undefined, 200)) as { NetworksDeleted: string[] | null };
    assert.ok(Array.isArray(pruned.NetworksDeleted));
    assert.deepEqual(await expect('POST', '/networks/prune', undefined, 200), { NetworksDeleted: null });
  });

  it('checks connect and disconnect bodies as dockerd does, then leaves them to the containers', async () => {
    await expect('POST', '/networks/bridge/connect', undefined, 400, 'got EOF while reading request body');
    await expect('POST', '/networks/bridge/connect', { Container: 5 }, 400, 'json: cannot unmarshal number into Go struct field NetworkConnect.Container of type string');
    await expect('POST', '/networks/bridge/connect', { container: 'x', EndpointConfig: 5 }, 400, 'json: cannot unmarshal number into Go struct field NetworkConnect.EndpointConfig of type network.EndpointSettings');
    await expect('POST', '/networks/bridge/disconnect', [], 400, 'json: cannot unmarshal array into Go value of type types.NetworkDisconnect');
    await expect('POST', '/networks/bridge/disconnect', { Container: 'x', Force: 'y' }, 400, 'json: cannot unmarshal string into Go struct field NetworkDisconnect.Force of type bool');
    await expect('POST', '/networks/bridge/connect', { Container: 'x' }, 404, 'No such container: x');
    await expect('POST', '/networks/bridge/disconnect', { Container: 'x' }, 404, 'No such container: x');
    // a forced disconnect looks for a stale endpoint of that name
    await expect('POST', '/networks/bridge/disconnect', { Container: 'x', Force: true }, 404, 'endpoint x not found');
  });
});
