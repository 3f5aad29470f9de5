// What the managers' allocator gives services and tasks on a one-node swarm, through the docker
// CLI and the API as dockerd 20.10 shows it: ingress published ports (8080 as asked, 0 as the
// lowest free of 30000–32767), a conflict refused in swarmkit's words, a virtual IP per swarm
// network, each task an address of its network's pool and a record in the node's table (berth's
// debug view), all given back when the services go; an encrypted overlay network refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadBusybox } from '../../helpers/busybox-image.js';
import { startSwarmNodes, type SwarmNode, type SwarmNodes } from '../../helpers/swarm-nodes.js';
import { until } from '../../helpers/until.js';

interface Endpoint {
  Ports?: Array<{ Protocol: string; TargetPort: number; PublishedPort: number; PublishMode: string }>;
  VirtualIPs?: Array<{ NetworkID: string; Addr: string }>;
}
interface TableView {
  Network?: string;
  Table?: string;
  Entries?: Array<{ Key: string; Owner: string; Value: string; Record?: { name?: string; serviceName?: string; serviceId?: string } }>;
}
interface TaskJson {
  ID: string;
  NetworksAttachments?: Array<{ Network: { ID: string; Spec: { Name: string } }; Addresses: string[] }>;
}

describe('swarm allocator', () => {
  let swarm: SwarmNodes;
  let n1: SwarmNode;
  const cli = async (args: string[]) => {
    const r = await n1.docker(args);
    assert.equal(r.code, 0, `docker ${args.join(' ')}: ${r.stderr}`);
    return r.stdout.trim();
  };
  const endpoint = async (name: string) => JSON.parse(await cli(['service', 'inspect', '--format', '{{json .Endpoint}}', name])) as Endpoint;
  const tasks = async (service: string) => {
    const res = await n1.request('GET', `/tasks?filters=${encodeURIComponent(JSON.stringify({ service: [service] }))}`);
    return res.json() as TaskJson[];
  };
  const ids: Record<string, string> = {};

  before(async () => {
    swarm = await startSwarmNodes(1);
    n1 = swarm.nodes[0]!;
    await loadBusybox(n1.berthd);
    await cli(['swarm', 'init', '--advertise-addr', n1.addr]);
    ids.ingress = await cli(['network', 'inspect', '--format', '{{.ID}}', 'ingress']);
    ids.ov = await cli(['network', 'create', '-d', 'overlay', 'ov']);
    ids.ov2 = await cli(['network', 'create', '-d', 'overlay', 'ov2']);
  });
  after(async () => {
    await swarm?.close();
  });

  it('refuses an encrypted overlay network (no IPsec in berth), making nothing', async () => {
    const r = await n1.docker(['network', 'create', '-d', 'overlay', '--opt', 'encrypted', 'secret-ov']);
    assert.notEqual(r.code, 0);
    assert.equal(r.stderr.trim(), 'Error response from daemon: encrypted overlay networks are not supported by berth');
    assert.equal((await n1.request('GET', '/networks/secret-ov')).status, 404);
  });

  it('publishes a port asked for as asked and 0 as the lowest free dynamic port, and a virtual IP on each network', async () => {
    ids.a = await cli(['service', 'create', '--detach', '--name', 'a', '--replicas', '2', '-p', '8080:80', '-p', '81', '--network', 'ov', '--network', 'ov2', 'busybox', 'sleep', '3600']);
    ids.b = await cli(['service', 'create', '--detach', '--name', 'b', '-p', '82', '--network', 'ov', 'busybox', 'sleep', '3600']);
    const a = await endpoint('a');
    assert.deepEqual(a.Ports, [
      { Protocol: 'tcp', TargetPort: 80, PublishedPort: 8080, PublishMode: 'ingress' },
      { Protocol: 'tcp', TargetPort: 81, PublishedPort: 30000, PublishMode: 'ingress' },
    ]);
    // the ingress network's first (its ports go through the routing mesh), then the spec's networks'
    const [ingressVip, ...vips] = a.VirtualIPs ?? [];
    assert.equal(ingressVip?.NetworkID, ids.ingress);
    assert.match(ingressVip!.Addr, /^10\.0\.0\.\d+\/24$/);
    assert.deepEqual(
      vips.sort((x, y) => x.Addr.localeCompare(y.Addr)),
      [
        { NetworkID: ids.ov, Addr: '10.0.1.2/24' },
        { NetworkID: ids.ov2, Addr: '10.0.2.2/24' },
      ],
    );
    const b = await endpoint('b');
    assert.deepEqual(b.Ports, [{ Protocol: 'tcp', TargetPort: 82, PublishedPort: 30001, PublishMode: 'ingress' }]);
    assert.deepEqual(b.VirtualIPs?.map((v) => v.NetworkID), [ids.ingress, ids.ov]);
    // dnsrr: no virtual IP
    await cli(['service', 'create', '--detach', '--name', 'd', '--endpoint-mode', 'dnsrr', '--network', 'ov', 'busybox', 'sleep', '3600']);
    assert.equal((await endpoint('d')).VirtualIPs, undefined);
  });

  it("refuses a published port another service holds, in swarmkit's words", async () => {
    const r = await n1.docker(['service', 'create', '--detach', '--name', 'c', '-p', '8080:80', 'busybox', 'sleep', '3600']);
    assert.notEqual(r.code, 0);
    assert.equal(r.stderr.trim(), `Error response from daemon: rpc error: code = InvalidArgument desc = port '8080' is already in use by service 'a' (${ids.a}) as an ingress port`);
    const dynamic = await n1.request('POST', '/services/create', { json: { Name: 'c', TaskTemplate: { ContainerSpec: { Image: 'busybox' } }, EndpointSpec: { Ports: [{ TargetPort: 80, PublishedPort: 30001, PublishMode: 'host' }] } } });
    assert.equal(dynamic.status, 400);
    assert.equal((dynamic.json() as { message: string }).message, `rpc error: code = InvalidArgument desc = port '30001' is already in use by service 'b' (${ids.b}) as an ingress port`);
  });

  it("gives each task an address on each of its service's networks, none twice", async () => {
    const all = await until('the tasks allocated', () => Promise.all(['a', 'b', 'd'].map(tasks)), (lists) => lists.flat().length === 4 && lists.flat().every((t) => t.NetworksAttachments !== undefined));
    const [a] = all;
    // the ingress network first, for the routing mesh
    for (const t of a!) assert.deepEqual(t.NetworksAttachments!.map((n) => [n.Network.ID, n.Network.Spec.Name]), [[ids.ingress, 'ingress'], ...[[ids.ov, 'ov'], [ids.ov2, 'ov2']].sort()]);
    const onOv = all.flat().map((t) => t.NetworksAttachments!.find((n) => n.Network.ID === ids.ov)!.Addresses[0]!);
    const vips = (await Promise.all(['a', 'b'].map(endpoint))).map((e) => e.VirtualIPs!.find((v) => v.NetworkID === ids.ov)!.Addr);
    assert.equal(new Set([...onOv, ...vips]).size, onOv.length + vips.length, `tasks ${onOv.join()} beside the VIPs ${vips.join()}`);
    for (const addr of onOv) assert.match(addr, /^10\.0\.1\.\d+\/24$/);
  });

  it("shows a task's endpoint record in the node's copy of its network's endpoint_table (berth's debug route)", async () => {
    const table = async () => (await n1.request('GET', `/debug/networks/${ids.ov}/tables/endpoint_table`)).json() as TableView;
    const view = await until("b's record in the table", table, (v) => (v.Entries ?? []).some((e) => e.Record?.serviceName === 'b'), 60_000);
    assert.deepEqual([view.Network, view.Table], [ids.ov, 'endpoint_table']);
    const [b, ...more] = view.Entries!.filter((e) => e.Record?.serviceName === 'b');
    assert.equal(more.length, 0);
    assert.match(b!.Record!.name!, /^b\.1\.\w{25}$/);
    assert.equal(b!.Record!.serviceId, ids.b);
    assert.ok(Buffer.from(b!.Value, 'base64').length > 0);
    const none = await n1.request('GET', '/debug/networks/nonesuch/tables/endpoint_table');
    assert.equal(none.status, 404);
  });

  it('gives the ports and addresses back when the services go', async () => {
    await cli(['service', 'rm', 'a', 'b', 'd']);
    await until('the tasks reaped', async () => (await n1.request('GET', '/tasks')).json() as TaskJson[], (list) => list.length === 0, 60_000);
    await cli(['service', 'create', '--detach', '--name', 'e', '-p', '8080:80', '-p', '81', '--network', 'ov', 'busybox', 'sleep', '3600']);
    const e = await endpoint('e');
    assert.deepEqual(e.Ports?.map((p) => p.PublishedPort), [8080, 30000]);
    assert.deepEqual(e.VirtualIPs?.find((v) => v.NetworkID === ids.ov)?.Addr, '10.0.1.2/24');
    const [t] = await until('its task allocated', () => tasks('e'), (list) => list.length === 1 && list[0]!.NetworksAttachments !== undefined);
    assert.deepEqual(t!.NetworksAttachments!.find((n) => n.Network.ID === ids.ov)!.Addresses, ['10.0.1.3/24']);
  });

  it('keeps the ingress network while a service publishes through it, one at a time, and no service names it', async () => {
    const named = await n1.docker(['service', 'create', '--detach', '--name', 'f', '--network', 'ingress', 'busybox', 'sleep', '3600']);
    assert.notEqual(named.code, 0);
    assert.equal(named.stderr.trim(), 'Error response from daemon: rpc error: code = InvalidArgument desc = Service cannot be explicitly attached to the ingress network "ingress"');
    const inUse = await n1.request('DELETE', `/networks/${ids.ingress}`);
    assert.equal(inUse.status, 400);
    assert.match((inUse.json() as { message: string }).message, /^rpc error: code = FailedPrecondition desc = ingress network cannot be removed because service \w+ depends on it$/);
    const second = await n1.request('POST', '/networks/create', { json: { Name: 'ingress2', Driver: 'overlay', Ingress: true } });
    assert.equal(second.status, 409);
    assert.equal((second.json() as { message: string }).message, `rpc error: code = AlreadyExists desc = ingress network (${ids.ingress}) is already present`);
    await cli(['service', 'rm', 'e']);
    assert.equal((await n1.request('DELETE', `/networks/${ids.ingress}`)).status, 204);
    const again = await n1.request('POST', '/networks/create', { json: { Name: 'ingress2', Driver: 'overlay', Ingress: true } });
    assert.equal(again.status, 201, again.body);
    const made = (await n1.request('GET', '/networks/ingress2')).json() as { Ingress: boolean; IPAM: { Config: Array<{ Subnet: string }> }; Options: Record<string, string> };
    assert.deepEqual([made.Ingress, made.IPAM.Config[0]!.Subnet, made.Options['com.docker.network.driver.overlay.vxlanid_list']], [true, '10.0.0.0/24', '4096']);
  });
});
