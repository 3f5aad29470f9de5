import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DnsRegistry } from './dns-registry.js';
import { SwarmNames, type SwarmEndpoint } from './swarm-names.js';

const VIP = '10.0.1.2';

/** Task n of service web (VIP mode, alias 'site') on overlay 'appnet', at 10.0.1.(10+n). */
function task(n: number, o: Partial<SwarmEndpoint> = {}): SwarmEndpoint {
  return { endpointId: `ep${n}`, name: `web.${n}.t${n}`, serviceName: 'web', serviceId: 'svc-web', virtualIp: VIP, ip: `10.0.1.${10 + n}`, aliases: ['Site'], taskAliases: [`alias${n}`], disabled: false, ...o };
}

/** Task n of service rr (dnsrr: no VIP). */
const rrTask = (n: number) => task(n, { endpointId: `rr${n}`, name: `rr.${n}.r${n}`, serviceName: 'rr', serviceId: 'svc-rr', virtualIp: '', ip: `10.0.1.${50 + n}`, aliases: [], taskAliases: [] });

function appnet(...endpoints: SwarmEndpoint[]): SwarmNames {
  const names = new SwarmNames();
  names.addNetwork('ov1', 'appnet', { ingress: false });
  for (const endpoint of endpoints) names.apply('ov1', { kind: 'add', endpoint });
  return names;
}

const a = (names: SwarmNames, name: string, key?: string) => names.lookup('ov1', name, key)?.a;
const sorted = (list: readonly string[] | undefined) => (list === undefined ? undefined : [...list].sort());

describe('swarm names', () => {
  it('answers a VIP service and its aliases with the VIP, tasks.<service> with every task', () => {
    const names = appnet(task(1), task(2));
    assert.deepEqual(a(names, 'web'), [VIP]);
    assert.deepEqual(a(names, 'site'), [VIP], 'a service alias, without case');
    assert.deepEqual(sorted(a(names, 'tasks.web')), ['10.0.1.11', '10.0.1.12']);
    assert.deepEqual(sorted(a(names, 'tasks.site')), ['10.0.1.11', '10.0.1.12']);
  });

  it('answers a task by its name and its task aliases, and PTR of its IP with name.network; a VIP has no PTR', () => {
    const names = appnet(task(1), task(2));
    assert.deepEqual(a(names, 'web.1.t1'), ['10.0.1.11']);
    assert.deepEqual(a(names, 'alias2'), ['10.0.1.12']);
    assert.equal(names.reverse('ov1', '10.0.1.11'), 'web.1.t1.appnet');
    assert.equal(names.reverse('ov1', VIP), undefined);
  });

  it('answers a dnsrr service with every task, taking turns', () => {
    const names = appnet(rrTask(1), rrTask(2), rrTask(3));
    const firsts = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const found = a(names, 'rr');
      assert.deepEqual(sorted(found), ['10.0.1.51', '10.0.1.52', '10.0.1.53']);
      firsts.add(found![0]);
    }
    assert.equal(firsts.size, 3);
    assert.deepEqual(names.lookup('ov1', 'rr')?.aaaa, [], 'IPv4 only');
  });

  it('answers only names of the network given by NAME.NETWORK\'s key', () => {
    const names = appnet(task(1));
    assert.deepEqual(a(names, 'web', 'appnet'), [VIP]);
    assert.equal(a(names, 'web', 'other'), undefined);
  });

  it('drops a disabled task\'s names but keeps its service\'s VIP, and gives them back when enabled', () => {
    const names = appnet(task(1), rrTask(1));
    const version = names.version;
    names.apply('ov1', { kind: 'disable', endpoint: task(1) });
    names.apply('ov1', { kind: 'disable', endpoint: rrTask(1) });
    assert.ok(names.version > version);
    for (const name of ['web.1.t1', 'alias1', 'tasks.web', 'rr', 'tasks.rr']) assert.equal(a(names, name), undefined, name);
    assert.equal(names.reverse('ov1', '10.0.1.11'), undefined);
    assert.deepEqual(a(names, 'web'), [VIP], 'the load balancer stays: so does its name');
    names.apply('ov1', { kind: 'enable', endpoint: task(1) });
    names.apply('ov1', { kind: 'enable', endpoint: rrTask(1) });
    assert.deepEqual(a(names, 'tasks.web'), ['10.0.1.11']);
    assert.deepEqual(a(names, 'rr'), ['10.0.1.51']);
    assert.equal(names.reverse('ov1', '10.0.1.11'), 'web.1.t1.appnet');
  });

  it('binds no VIP for a task added disabled, until it is enabled', () => {
    const names = appnet();
    names.apply('ov1', { kind: 'add', endpoint: task(1, { disabled: true }) });
    names.apply('ov1', { kind: 'disable', endpoint: task(1, { disabled: true }) });
    assert.equal(a(names, 'web'), undefined);
    names.apply('ov1', { kind: 'enable', endpoint: task(1) });
    assert.deepEqual(a(names, 'web'), [VIP]);
  });

  it('keeps the VIP name while any task of the service is left, and forgets all with the last', () => {
    const names = appnet(task(1), task(2));
    names.apply('ov1', { kind: 'remove', endpoint: task(1) });
    assert.deepEqual(a(names, 'web'), [VIP]);
    assert.equal(a(names, 'web.1.t1'), undefined);
    assert.deepEqual(a(names, 'tasks.web'), ['10.0.1.12']);
    names.apply('ov1', { kind: 'remove', endpoint: task(2) });
    for (const name of ['web', 'site', 'tasks.web', 'web.2.t2', 'alias2']) assert.equal(a(names, name), undefined, name);
    names.apply('ov1', { kind: 'remove', endpoint: task(2) });
  });

  it('takes a record removed then added again with new values', () => {
    const names = appnet(task(1));
    names.apply('ov1', { kind: 'remove', endpoint: task(1) });
    names.apply('ov1', { kind: 'add', endpoint: task(1, { ip: '10.0.1.99', taskAliases: [] }) });
    assert.deepEqual(a(names, 'web.1.t1'), ['10.0.1.99']);
    assert.equal(a(names, 'alias1'), undefined);
    assert.equal(names.reverse('ov1', '10.0.1.11'), undefined);
    // an add for a record it holds replaces it
    names.apply('ov1', { kind: 'add', endpoint: task(1, { ip: '10.0.1.98' }) });
    assert.deepEqual(a(names, 'tasks.web'), ['10.0.1.98']);
  });

  it('resolves a plain container on an attachable network by its name and task aliases only', () => {
    const plain: SwarmEndpoint = { endpointId: 'c1', name: 'tool', serviceName: '', serviceId: '', virtualIp: '', ip: '10.0.1.70', aliases: [], taskAliases: ['helper'], disabled: false };
    const names = appnet(plain);
    assert.deepEqual(a(names, 'tool'), ['10.0.1.70']);
    assert.deepEqual(a(names, 'helper'), ['10.0.1.70']);
    assert.equal(a(names, 'tasks.'), undefined);
    assert.equal(names.reverse('ov1', '10.0.1.70'), 'tool.appnet');
  });

  it('holds nothing from the ingress network', () => {
    const names = new SwarmNames();
    names.addNetwork('ing', 'ingress', { ingress: true });
    names.apply('ing', { kind: 'add', endpoint: task(1) });
    assert.equal(names.lookup('ing', 'web'), undefined);
    assert.equal(names.lookup('ing', 'web.1.t1'), undefined);
    assert.equal(names.reverse('ing', '10.0.1.11'), undefined);
    assert.equal(names.service('ing', 'web', 'http', 'tcp', 'ingress'), undefined);
  });

  it('refuses a change on a network it does not know, and forgets a removed network', () => {
    const names = appnet(task(1));
    assert.throws(() => names.apply('nope', { kind: 'add', endpoint: task(1) }), /no network nope/);
    names.removeNetwork('ov1');
    assert.equal(a(names, 'web'), undefined);
  });

  it('names SRV targets by port name and protocol: each enabled task as task.network with the target port', () => {
    const names = appnet(task(1), task(2), task(3));
    names.setServicePorts('svc-web', [
      { name: 'HTTP', protocol: 'tcp', targetPort: 8080 },
      { name: 'dns', protocol: 'udp', targetPort: 5353 },
      { name: '', protocol: 'tcp', targetPort: 9 },
    ]);
    names.apply('ov1', { kind: 'disable', endpoint: task(3) });
    const targets = names.service('ov1', 'web', 'http', 'tcp');
    assert.deepEqual(
      [...targets!].sort((x, y) => x.target.localeCompare(y.target)),
      [
        { target: 'web.1.t1.appnet', port: 8080, ipv4: '10.0.1.11' },
        { target: 'web.2.t2.appnet', port: 8080, ipv4: '10.0.1.12' },
      ],
    );
    assert.deepEqual(names.service('ov1', 'site', 'dns', 'udp')?.length, 2, 'by a service alias too');
    assert.deepEqual(names.service('ov1', 'web', 'dns', 'tcp'), [], 'the protocol must match');
    assert.deepEqual(names.service('ov1', 'web', 'ssh', 'tcp'), [], 'an unknown port');
    assert.equal(names.service('ov1', 'db', 'http', 'tcp'), undefined, 'an unknown service: maybe not ours');
    assert.deepEqual(names.service('ov1', 'db', 'http', 'tcp', 'appnet'), [], 'an unknown service on a network named: ours');
    names.setServicePorts('svc-web', []);
    assert.deepEqual(names.service('ov1', 'web', 'http', 'tcp'), []);
  });

  // its speed is the bench's (records applied per second), never a test's
  it('takes 10k changes, a third of them disabled, and keeps the other tasks', () => {
    const names = appnet();
    for (let i = 0; i < 10_000; i++) {
      const endpoint = task(i, { ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, name: `web.${i}.t${i}`, taskAliases: [] });
      names.apply('ov1', { kind: 'add', endpoint });
      if (i % 3 === 0) names.apply('ov1', { kind: 'disable', endpoint });
      names.lookup('ov1', `web.${i}.t${i}`);
    }
    assert.equal(a(names, 'tasks.web')?.length, 6666);
  });
});

describe('DNS registry with swarm networks', () => {
  const CLIENT_ID = 'c'.repeat(64);
  const GWBRIDGE = '172.18.0.5';

  /** A task container on overlay 'appnet' (10.0.1.30), on bridge 'front' (10.1.0.9) and with a gwbridge leg. */
  function registry(): DnsRegistry {
    const r = new DnsRegistry();
    r.swarm.addNetwork('ov1', 'appnet', { ingress: false });
    r.swarm.addNetwork('ing', 'ingress', { ingress: true });
    r.swarm.apply('ov1', { kind: 'add', endpoint: task(1) });
    r.swarm.apply('ing', { kind: 'add', endpoint: task(1, { ip: '10.255.0.11' }) });
    r.addNetwork('n1', 'front');
    r.addNetwork('ov1', 'appnet', { swarm: true });
    r.addNetwork('ing', 'ingress', { swarm: true });
    r.addEndpoint('n1', { containerId: CLIENT_ID, containerName: 'client', ipv4: '10.1.0.9' });
    r.addEndpoint('n1', { containerId: 'w'.repeat(64), containerName: 'web', ipv4: '10.1.0.2' });
    r.addEndpoint('ing', { containerId: CLIENT_ID, containerName: 'client', ipv4: '10.255.0.30' });
    r.addEndpoint('ov1', { containerId: CLIENT_ID, containerName: 'client', aliases: ['me'], ipv4: '10.0.1.30' });
    r.addQuerier(CLIENT_ID, GWBRIDGE);
    return r;
  }

  it('resolves the swarm names for a querier on the swarm network, from any of its addresses', () => {
    const r = registry();
    for (const source of ['10.0.1.30', '10.1.0.9', '10.255.0.30', GWBRIDGE]) {
      assert.deepEqual(r.lookup(source, 'tasks.web')?.a, ['10.0.1.11'], source);
    }
    assert.equal(r.lookup('10.1.0.2', 'tasks.web'), undefined, 'a container off the swarm network');
  });

  it('asks the swarm networks before the others, as a swarm node\'s sandbox', () => {
    const r = registry();
    assert.deepEqual(r.lookup('10.1.0.9', 'web')?.a, [VIP], 'the service, not the bridge container named web');
    assert.deepEqual(r.lookup('10.1.0.9', 'web.front')?.a, ['10.1.0.2']);
  });

  it('resolves NAME.NETWORK for swarm names', () => {
    const r = registry();
    assert.deepEqual(r.lookup(GWBRIDGE, 'web.appnet')?.a, [VIP]);
    assert.deepEqual(r.lookup(GWBRIDGE, 'tasks.web.appnet')?.a, ['10.0.1.11']);
    assert.deepEqual(r.lookup(GWBRIDGE, 'web.1.t1.appnet')?.a, ['10.0.1.11']);
    assert.equal(r.lookup(GWBRIDGE, 'web.ingress'), undefined);
  });

  it('adds no names from the container\'s own endpoint on a swarm network, nor from its gwbridge address', () => {
    const r = registry();
    for (const name of ['client.appnet', 'me', 'c'.repeat(12) + '.appnet']) assert.equal(r.lookup('10.1.0.9', name), undefined, name);
    assert.equal(r.reverse('10.1.0.9', '10.0.1.30'), undefined);
    assert.equal(r.reverse('10.1.0.9', GWBRIDGE), undefined);
    assert.deepEqual(r.lookup('10.1.0.9', 'client')?.a, ['10.1.0.9'], 'its bridge name stays');
  });

  it('answers PTR of a task IP with task.network', () => {
    assert.deepEqual(registry().reverse(GWBRIDGE, '10.0.1.11'), ['web.1.t1.appnet']);
  });

  it('forgets a querier address removed', () => {
    const r = registry();
    const version = r.version;
    r.removeQuerier(GWBRIDGE);
    assert.ok(r.version > version);
    assert.equal(r.lookup(GWBRIDGE, 'web'), undefined);
  });

  it('answers SRV names, plain or with the network, and says which are ours', () => {
    const r = registry();
    r.swarm.setServicePorts('svc-web', [{ name: 'http', protocol: 'tcp', targetPort: 80 }]);
    const one = [{ target: 'web.1.t1.appnet', port: 80, ipv4: '10.0.1.11' }];
    assert.deepEqual(r.service(GWBRIDGE, '_http._tcp.web'), one);
    assert.deepEqual(r.service(GWBRIDGE, '_http._tcp.site.appnet'), one);
    assert.deepEqual(r.service(GWBRIDGE, '_http._udp.web'), [], 'known service, wrong protocol: NXDOMAIN');
    assert.deepEqual(r.service(GWBRIDGE, '_nope._tcp.db.appnet'), [], 'unknown service on our network: NXDOMAIN');
    assert.equal(r.service(GWBRIDGE, '_sip._udp.example.com'), undefined, 'not ours: forwarded');
    assert.equal(r.service(GWBRIDGE, 'web'), undefined, 'not an SRV name');
    assert.equal(r.service('10.1.0.2', '_http._tcp.web'), undefined, 'a querier off the swarm network');
  });

  it('moves its version on with every swarm change, for the reply cache', () => {
    const r = registry();
    const version = r.version;
    r.swarm.apply('ov1', { kind: 'disable', endpoint: task(1) });
    assert.ok(r.version > version);
  });
});
