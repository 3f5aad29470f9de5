// `docker stack deploy -c` on a one-node swarm (a second node joins at the end), as users run Docker's: a compose v3.8 file with two
// services, a secret and a config from files, deployed, listed (`stack ls`, `services`, `ps`),
// one service reaching the other by its name on the stack's overlay network (a placeholder bridge
// of the node until overlay networks exist), and `stack rm` leaving nothing behind. Then the swarm
// networks' calls on a manager with the answers dockerd 20.10 gives (checked on the reference
// engine): their JSON, filters, the checks of a service's networks, removal while in use, events,
// and a worker's refusals.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadBusybox } from '../../helpers/busybox-image.js';
import { startSwarmNodes, type SwarmNode, type SwarmNodes } from '../../helpers/swarm-nodes.js';
import { until } from '../../helpers/until.js';

const COMPOSE = `version: "3.8"
services:
  web:
    image: busybox
    command: ["sh", "-c", "mkdir -p /www && echo hello from web > /www/index.html && exec httpd -f -p 80 -h /www"]
  client:
    image: busybox
    command: ["sleep", "3600"]
    secrets:
      - db_password
    configs:
      - source: site
        target: /etc/site.conf
secrets:
  db_password:
    file: ./db_password.txt
configs:
  site:
    file: ./site.conf
`;

interface NetworkJson {
  Name: string;
  Id: string;
  Scope: string;
  Driver: string;
  IPAM: { Driver: string; Options: Record<string, string> | null; Config: Array<Record<string, string>> };
  Attachable: boolean;
  Internal: boolean;
  Containers: Record<string, { Name: string; IPv4Address: string }> | null;
  Options: Record<string, string>;
  Labels: Record<string, string> | null;
}

describe('stacks', () => {
  let swarm: SwarmNodes;
  let n1: SwarmNode;
  let dir: string;
  const call = async <T>(method: string, urlPath: string, body?: unknown) => {
    const res = await n1.request(method, urlPath, body === undefined ? {} : { json: body });
    return { status: res.status, body: (res.body === '' ? undefined : res.json()) as T };
  };
  const cli = async (args: string[], timeoutMs?: number) => {
    const r = await n1.docker(args, timeoutMs === undefined ? {} : { timeoutMs });
    assert.equal(r.code, 0, `docker ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const byLabel = (kind: string, stack: string) => call<unknown[]>('GET', `/${kind}?filters=${encodeURIComponent(JSON.stringify({ label: [`com.docker.stack.namespace=${stack}`] }))}`);

  before(async () => {
    swarm = await startSwarmNodes(2);
    n1 = swarm.nodes[0]!;
    await loadBusybox(n1.berthd);
    await cli(['swarm', 'init', '--advertise-addr', n1.addr]);
    dir = mkdtempSync(path.join(os.tmpdir(), 'berth-stack-'));
    writeFileSync(path.join(dir, 'compose.yml'), COMPOSE);
    writeFileSync(path.join(dir, 'db_password.txt'), 's3cret');
    writeFileSync(path.join(dir, 'site.conf'), 'listen=80');
  });
  after(async () => {
    await swarm?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('`stack deploy -c` makes the network, secret, config and services, and they converge', async () => {
    const out = await cli(['stack', 'deploy', '-c', path.join(dir, 'compose.yml'), '--resolve-image', 'never', 'st'], 60_000);
    for (const line of ['Creating network st_default', 'Creating secret st_db_password', 'Creating config st_site', 'Creating service st_web', 'Creating service st_client']) assert.ok(out.includes(line), out);
    assert.equal((await cli(['stack', 'ls', '--format', '{{.Name}} {{.Services}}'])).trim(), 'st 2');
    await until('both services 1/1', () => cli(['stack', 'services', 'st', '--format', '{{.Name}} {{.Replicas}}']), (o) => o.trim() === 'st_client 1/1\nst_web 1/1', 60_000);
    const ps = (await cli(['stack', 'ps', 'st', '--format', '{{.Name}} {{.DesiredState}} {{.CurrentState}}'])).trim().split('\n').sort();
    assert.equal(ps.length, 2);
    assert.match(ps[0]!, /^st_client\.1 Running Running /);
    assert.match(ps[1]!, /^st_web\.1 Running Running /);
  });

  it('the stack network shows once, as a swarm overlay, with the tasks attached on this node', async () => {
    const ls = (await cli(['network', 'ls', '--filter', 'name=st_', '--format', '{{.Name}} {{.Driver}} {{.Scope}}'])).trim();
    assert.equal(ls, 'st_default overlay swarm');
    const net = (await call<NetworkJson>('GET', '/networks/st_default')).body;
    assert.match(net.Id, /^[0-9a-z]{25}$/);
    assert.deepEqual([net.Scope, net.Driver, net.Labels], ['swarm', 'overlay', { 'com.docker.stack.namespace': 'st' }]);
    assert.deepEqual(net.IPAM.Config, [{ Subnet: '10.0.1.0/24', Gateway: '10.0.1.1' }]);
    assert.equal(net.Options['com.docker.network.driver.overlay.vxlanid_list'], '4097');
    const attached = Object.values(net.Containers ?? {}).map((c) => c.Name.split('.')[0]).sort();
    assert.deepEqual(attached, ['st_client', 'st_web']);
    for (const c of Object.values(net.Containers ?? {})) assert.match(c.IPv4Address, /^10\.0\.1\.\d+\/24$/);
  });

  it('a task reaches the other service by its name, and has its secret and config', async () => {
    const client = (await cli(['ps', '-q', '--filter', 'label=com.docker.swarm.service.name=st_client'])).trim();
    assert.match(client, /^[0-9a-f]{12}$/);
    for (const name of ['web', 'st_web']) {
      const page = await until(`wget http://${name}/`, () => n1.docker(['exec', client, 'sh', '-c', `wget -qO- http://${name}/`]), (r) => r.code === 0, 30_000);
      assert.equal(page.stdout, 'hello from web\n');
    }
    assert.equal(await cli(['exec', client, 'cat', '/run/secrets/db_password']), 's3cret');
    assert.equal(await cli(['exec', client, 'cat', '/etc/site.conf']), 'listen=80');
  });

  it('`stack rm` leaves no service, secret, config, network or container', async () => {
    const out = await cli(['stack', 'rm', 'st']);
    for (const line of ['Removing service st_client', 'Removing service st_web', 'Removing secret st_db_password', 'Removing config st_site', 'Removing network st_default']) assert.ok(out.includes(line), out);
    for (const kind of ['services', 'secrets', 'configs']) assert.deepEqual((await byLabel(kind, 'st')).body, [], kind);
    await until('the task containers gone', () => cli(['ps', '-aq']), (o) => o.trim() === '', 30_000);
    // this node keeps the network until the last task container goes, as dockerd's attachment does
    await until('the network gone from the node', () => byLabel('networks', 'st'), (r) => r.body.length === 0, 30_000);
    assert.equal((await cli(['stack', 'ls', '--format', '{{.Name}}'])).trim(), '');
  });

  it('swarm networks on a manager: dockerd\'s JSON, filters and refusals', async () => {
    const since = Math.floor(Date.now() / 1000);
    const made = await call<{ Id: string; Warning: string }>('POST', '/networks/create', {
      Name: 'ov', Driver: 'overlay', Attachable: true, Internal: true, Options: { a: 'b' }, Labels: { x: 'y' },
      IPAM: { Config: [{ Subnet: '10.50.0.0/16', IPRange: '10.50.1.0/24', Gateway: '10.50.0.254' }] },
    });
    assert.equal(made.status, 201);
    assert.equal(made.body.Warning, '');
    const { Id, Created, ...shown } = (await call<NetworkJson & { Created: string }>('GET', '/networks/ov')).body;
    assert.equal(Id, made.body.Id);
    assert.ok(!Number.isNaN(Date.parse(Created)));
    assert.deepEqual(shown, {
      Name: 'ov', Scope: 'swarm', Driver: 'overlay', EnableIPv6: false,
      IPAM: { Driver: 'default', Options: null, Config: [{ Subnet: '10.50.0.0/16', IPRange: '10.50.1.0/24', Gateway: '10.50.0.254' }] },
      Internal: true, Attachable: true, Ingress: false, ConfigFrom: { Network: '' }, ConfigOnly: false, Containers: null,
      Options: { a: 'b', 'com.docker.network.driver.overlay.vxlanid_list': '4097' }, Labels: { x: 'y' },
    });
    const plain = (await call<{ Id: string }>('POST', '/networks/create', { Name: 'plain', Driver: 'overlay' })).body;
    const plainShown = (await call<NetworkJson>('GET', `/networks/${plain.Id}`)).body;
    assert.deepEqual([plainShown.IPAM.Config, plainShown.Labels], [[{ Subnet: '10.0.1.0/24', Gateway: '10.0.1.1' }], null]);
    // the ingress network swarm init made is one of them
    for (const [filter, names] of [['scope=swarm', 'ingress ov plain'], ['driver=overlay', 'ingress ov plain'], ['label=x=y', 'ov'], ['scope=local', 'bridge docker_gwbridge host none']] as const) {
      const listed = (await cli(['network', 'ls', '--filter', filter, '--format', '{{.Name}}'])).trim().split('\n').sort().join(' ');
      assert.equal(listed, names.split(' ').sort().join(' '), filter);
    }
    assert.equal((await call<NetworkJson[]>('GET', '/networks?filters=' + encodeURIComponent('{"type":["custom"]}'))).body.filter((n) => n.Scope === 'swarm').length, 3);

    const refusals: Array<[unknown, number, string]> = [
      [{ Name: 'ov', Driver: 'overlay' }, 409, 'network with name ov already exists'],
      [{ Name: 'ov', Driver: 'bridge' }, 409, 'network with name ov already exists'],
      [{ Name: 'x', Driver: 'overlay', Scope: 'local' }, 403, 'cannot downgrade network scope for overlay networks'],
      [{ Name: 'x', Driver: 'overlay', IPAM: { Config: [{ Subnet: 'nonsense' }] } }, 500, 'Invalid subnet nonsense : invalid CIDR address: nonsense'],
      [{ Name: 'x', Driver: 'overlay', IPAM: { Config: [{ Subnet: '10.60.0.0/16', Gateway: '10.61.0.1' }] } }, 400, 'rpc error: code = InvalidArgument desc = ipam configuration: subnet 10.60.0.0/16 does not contain gateway 10.61.0.1'],
      [{ Name: 'x', Driver: 'overlay', IPAM: { Config: [{ Subnet: '10.70.0.0/16', IPRange: '10.71.0.0/24' }] } }, 400, 'rpc error: code = InvalidArgument desc = ipam configuration: subnet 10.70.0.0/16 does not contain range 10.71.0.0/24'],
      [{ Name: 'x', Driver: 'overlay', IPAM: { Driver: 'foo' } }, 400, 'rpc error: code = InvalidArgument desc = error during lookup of plugin foo'],
      [{ Name: 'a.b', Driver: 'overlay' }, 400, 'rpc error: code = InvalidArgument desc = name must be valid as a DNS name component'],
      [{ Name: 'a'.repeat(64), Driver: 'overlay' }, 400, 'rpc error: code = InvalidArgument desc = name must be 63 characters or fewer'],
      [{ Name: 'x', Driver: 'overlay', Labels: { 'com.docker.swarm.predefined': 'true' } }, 403, 'rpc error: code = PermissionDenied desc = label com.docker.swarm.predefined is for internally created predefined networks and cannot be applied by users'],
      [{ Name: 'x', Driver: 'overlay', Ingress: true, Attachable: true }, 400, 'rpc error: code = InvalidArgument desc = ingress network cannot be attachable'],
      [{ Name: 'x', Driver: 'overlay', IPAM: { Config: [{ Subnet: '10.50.5.0/24' }] } }, 403, 'Pool overlaps with other one on this address space'],
    ];
    for (const [body, status, message] of refusals) {
      const res = await call<{ message: string }>('POST', '/networks/create', body);
      assert.deepEqual([res.status, res.body.message], [status, message], JSON.stringify(body));
    }

    await cli(['network', 'create', 'lbr']);
    const service = (spec: unknown) => call<{ ID: string; message: string }>('POST', '/services/create', { Name: 's1', TaskTemplate: { ContainerSpec: { Image: 'busybox', Args: ['sleep', '60'] }, Networks: [spec] } });
    for (const [target, status, message] of [
      ['nosuch', 500, 'network nosuch not found'],
      ['lbr', 403, 'The network lbr cannot be used with services. Only networks scoped to the swarm can be used, such as those created with the overlay driver.'],
      ['none', 404, 'could not find the corresponding predefined swarm network: network none not found'],
    ] as const) {
      const res = await service({ Target: target });
      assert.deepEqual([res.status, res.body.message], [status, message], target);
    }
    const svc = await service({ Target: 'ov', Aliases: ['a1'] });
    assert.equal(svc.status, 201);
    const spec = (await call<{ Spec: { TaskTemplate: { Networks: unknown[] } } }>('GET', `/services/${svc.body.ID}`)).body.Spec;
    assert.deepEqual(spec.TaskTemplate.Networks, [{ Target: made.body.Id, Aliases: ['a1'] }]);
    const inUse = await call<{ message: string }>('DELETE', '/networks/ov');
    assert.deepEqual([inUse.status, inUse.body.message], [400, `rpc error: code = FailedPrecondition desc = network ${made.body.Id} is in use by service ${svc.body.ID}`]);
    const missing = await call<{ message: string }>('DELETE', '/networks/nosuch');
    assert.deepEqual([missing.status, missing.body.message], [404, 'network nosuch not found']);
    await cli(['service', 'rm', 's1']);
    await until('the network removed once its tasks are gone', () => call('DELETE', '/networks/ov'), (r) => r.status === 204, 30_000);
    assert.equal((await call('DELETE', `/networks/${plain.Id}`)).status, 204);
    await cli(['network', 'rm', 'lbr']);

    const events = await cli(['events', '--since', String(since), '--until', String(Math.floor(Date.now() / 1000) + 1), '--filter', 'type=network', '--filter', 'scope=swarm', '--format', '{{.Action}} {{.Actor.ID}} {{.Actor.Attributes.name}}']);
    const lines = events.trim().split('\n');
    for (const line of [`create ${made.body.Id} ov`, `create ${plain.Id} plain`, `remove ${made.body.Id} ov`, `remove ${plain.Id} plain`]) assert.ok(lines.includes(line), events);
  });

  it('a worker neither lists, makes nor removes swarm networks', async () => {
    const n2 = swarm.nodes[1]!;
    const token = (await cli(['swarm', 'join-token', '-q', 'worker'])).trim();
    const joined = await n2.docker(['swarm', 'join', '--token', token, `${n1.addr}:2377`]);
    assert.equal(joined.code, 0, joined.stderr);
    await cli(['network', 'create', '-d', 'overlay', 'onmanager']);
    const onWorker = async (method: string, urlPath: string, body?: unknown) => {
      const res = await n2.request(method, urlPath, body === undefined ? {} : { json: body });
      return [res.status, (res.json() as { message?: string }).message];
    };
    assert.deepEqual(await onWorker('POST', '/networks/create', { Name: 'w', Driver: 'overlay' }), [403, 'Cannot create a multi-host network from a worker node. Please create the network from a manager node.']);
    assert.deepEqual(await onWorker('POST', '/networks/create', { Name: 'w', Scope: 'swarm' }), [403, 'Cannot create a multi-host network from a worker node. Please create the network from a manager node.']);
    assert.deepEqual(await onWorker('GET', '/networks/onmanager'), [404, 'network onmanager not found']);
    // the ingress network and docker_gwbridge come with the node's routing mesh, as on dockerd's workers
    const names = async () => ((await n2.request('GET', '/networks')).json() as NetworkJson[]).map((n) => n.Name).sort();
    await until('the worker\'s networks', names, (listed) => listed.join() === 'bridge,docker_gwbridge,host,ingress,none', 30_000);
    await cli(['network', 'rm', 'onmanager']);
  });
});
