// The VIPs a container balances, kept from the endpoint changes of its swarm networks: each VIP
// with its enabled tasks' addresses. The containers' namespaces are never programmed here: the
// fake finds no container on any network, so each round has nothing to restore.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import type { SwarmEndpoint, SwarmEndpointChange } from '../dns/swarm-names.js';
import { ServiceBalancers } from './service-balancers.js';

const log = pino({ level: 'silent' });

function endpoint(endpointId: string, ip: string, virtualIp: string, more: Partial<SwarmEndpoint> = {}): SwarmEndpoint {
  return { endpointId, name: `web.1.${endpointId}`, serviceName: 'web', serviceId: 's1', virtualIp, ip, aliases: [], taskAliases: [], disabled: false, ...more };
}

const change = (kind: SwarmEndpointChange['kind'], e: SwarmEndpoint): SwarmEndpointChange => ({ kind, endpoint: e });

/** Balancers whose container `c1` is on `networks`; the networks each round asked about are kept. */
function balancers(networks: Record<string, string[]> = { c1: ['appnet'] }) {
  const asked: string[] = [];
  const b = new ServiceBalancers({
    containersOn: (id) => {
      asked.push(id);
      return [];
    },
    networksOf: (id) => networks[id] ?? [],
    log,
  });
  return { b, asked };
}

describe('ServiceBalancers', () => {
  it("balances each VIP over its service's enabled tasks", async () => {
    const { b } = balancers();
    b.addNetwork('appnet', { ingress: false });
    b.apply('appnet', change('add', endpoint('e1', '10.0.1.3', '10.0.1.2')));
    b.apply('appnet', change('add', endpoint('e2', '10.0.1.4', '10.0.1.2')));
    b.apply('appnet', change('add', endpoint('e3', '10.0.1.6', '10.0.1.5', { serviceName: 'db', serviceId: 's2' })));
    assert.deepEqual(b.vipsOf('c1'), [
      { vip: '10.0.1.2', backends: ['10.0.1.3', '10.0.1.4'] },
      { vip: '10.0.1.5', backends: ['10.0.1.6'] },
    ]);
    assert.deepEqual(b.vipsOf('other'), [], 'a container on no swarm network balances nothing');
    await b.settled();
  });

  it('leaves a disabled task out, keeps the VIP without backends once none is left, and takes an enabled one back', async () => {
    const { b } = balancers();
    b.addNetwork('appnet', { ingress: false });
    const e1 = endpoint('e1', '10.0.1.3', '10.0.1.2');
    const e2 = endpoint('e2', '10.0.1.4', '10.0.1.2');
    b.apply('appnet', change('add', e1));
    b.apply('appnet', change('add', e2));
    b.apply('appnet', change('disable', e1));
    assert.deepEqual(b.vipsOf('c1'), [{ vip: '10.0.1.2', backends: ['10.0.1.4'] }]);
    b.apply('appnet', change('disable', e2));
    // the rules refuse a VIP without backends
    assert.deepEqual(b.vipsOf('c1'), [{ vip: '10.0.1.2', backends: [] }]);
    b.apply('appnet', change('enable', e1));
    assert.deepEqual(b.vipsOf('c1'), [{ vip: '10.0.1.2', backends: ['10.0.1.3'] }]);
    await b.settled();
  });

  it('drops a removed task, and the VIP with its last one', async () => {
    const { b } = balancers();
    b.addNetwork('appnet', { ingress: false });
    const e1 = endpoint('e1', '10.0.1.3', '10.0.1.2');
    const e2 = endpoint('e2', '10.0.1.4', '10.0.1.2');
    b.apply('appnet', change('add', e1));
    b.apply('appnet', change('add', e2));
    b.apply('appnet', change('remove', e1));
    assert.deepEqual(b.vipsOf('c1'), [{ vip: '10.0.1.2', backends: ['10.0.1.4'] }]);
    b.apply('appnet', change('remove', e2));
    assert.deepEqual(b.vipsOf('c1'), []);
    await b.settled();
  });

  it('counts a task added disabled as disabled until it is enabled', async () => {
    const { b } = balancers();
    b.addNetwork('appnet', { ingress: false });
    const e1 = endpoint('e1', '10.0.1.3', '10.0.1.2', { disabled: true });
    b.apply('appnet', change('add', e1));
    assert.deepEqual(b.vipsOf('c1'), [{ vip: '10.0.1.2', backends: [] }]);
    b.apply('appnet', change('enable', e1));
    assert.deepEqual(b.vipsOf('c1'), [{ vip: '10.0.1.2', backends: ['10.0.1.3'] }]);
    await b.settled();
  });

  it('gives no VIP for endpoints without one: a dnsrr task, a plain container', async () => {
    const { b } = balancers();
    b.addNetwork('appnet', { ingress: false });
    b.apply('appnet', change('add', endpoint('e1', '10.0.1.3', '')));
    b.apply('appnet', change('add', endpoint('e2', '10.0.1.4', '', { serviceName: '', serviceId: '', name: 'plain' })));
    assert.deepEqual(b.vipsOf('c1'), []);
    await b.settled();
  });

  it("ignores the ingress network's changes (the mesh's), even for a container on it, and reprograms nothing for them", async () => {
    const { b, asked } = balancers({ c1: ['ingress', 'appnet'] });
    b.addNetwork('ingress', { ingress: true });
    b.addNetwork('appnet', { ingress: false });
    b.apply('ingress', change('add', endpoint('e1', '10.0.0.3', '10.0.0.2')));
    assert.deepEqual(b.vipsOf('c1'), []);
    await b.settled();
    assert.deepEqual(asked, []);
    b.apply('appnet', change('add', endpoint('e2', '10.0.1.3', '10.0.1.2')));
    assert.deepEqual(b.vipsOf('c1'), [{ vip: '10.0.1.2', backends: ['10.0.1.3'] }]);
    await b.settled();
    assert.deepEqual(asked, ['appnet']);
  });

  it("gives a container on two swarm networks both networks' VIPs, and none of a network it is not on", async () => {
    const { b } = balancers({ c1: ['front', 'back', 'bridge'], c2: ['back'] });
    b.addNetwork('front', { ingress: false });
    b.addNetwork('back', { ingress: false });
    b.addNetwork('other', { ingress: false });
    b.apply('front', change('add', endpoint('e1', '10.0.1.3', '10.0.1.2')));
    b.apply('back', change('add', endpoint('e2', '10.0.2.3', '10.0.2.2', { serviceName: 'db', serviceId: 's2' })));
    b.apply('other', change('add', endpoint('e3', '10.0.3.3', '10.0.3.2', { serviceName: 'x', serviceId: 's3' })));
    assert.deepEqual(b.vipsOf('c1'), [
      { vip: '10.0.1.2', backends: ['10.0.1.3'] },
      { vip: '10.0.2.2', backends: ['10.0.2.3'] },
    ]);
    assert.deepEqual(b.vipsOf('c2'), [{ vip: '10.0.2.2', backends: ['10.0.2.3'] }]);
    await b.settled();
  });

  it('ignores the changes of a network not added, or removed', async () => {
    const { b, asked } = balancers({ c1: ['appnet'] });
    b.apply('appnet', change('add', endpoint('e1', '10.0.1.3', '10.0.1.2')));
    assert.deepEqual(b.vipsOf('c1'), []);
    b.addNetwork('appnet', { ingress: false });
    assert.deepEqual(b.vipsOf('c1'), [], 'a change before the network was added is not kept');
    b.apply('appnet', change('add', endpoint('e2', '10.0.1.4', '10.0.1.2')));
    assert.deepEqual(b.vipsOf('c1'), [{ vip: '10.0.1.2', backends: ['10.0.1.4'] }]);
    b.removeNetwork('appnet');
    assert.deepEqual(b.vipsOf('c1'), []);
    b.apply('appnet', change('add', endpoint('e3', '10.0.1.5', '10.0.1.2')));
    assert.deepEqual(b.vipsOf('c1'), []);
    await b.settled();
    assert.deepEqual(asked, ['appnet'], 'one round, for the one change kept');
  });
});
