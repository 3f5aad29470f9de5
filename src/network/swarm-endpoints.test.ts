// Where the swarm agent's news of its networks goes: the names and the balancers, or the routing
// mesh alone for the ingress network; the collaborators are fakes that record their calls.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServicePort, SwarmEndpointChange, SwarmNames } from './dns/swarm-names.js';
import type { ServiceBalancers } from './service-lb/service-balancers.js';
import { SwarmEndpoints } from './swarm-endpoints.js';

const APPNET = { id: 'n1', name: 'appnet', ingress: false };
const INGRESS = { id: 'n0', name: 'ingress', ingress: true };

const change = (endpointId: string, kind: SwarmEndpointChange['kind'] = 'add'): SwarmEndpointChange => ({
  kind,
  endpoint: { endpointId, name: `web.1.${endpointId}`, serviceName: 'web', serviceId: 's1', virtualIp: '10.0.1.2', ip: '10.0.1.3', aliases: [], taskAliases: [], disabled: false },
});

function endpoints() {
  const calls: unknown[][] = [];
  const record =
    (who: string) =>
    (...args: unknown[]) =>
      void calls.push([who, ...args]);
  const names = {
    addNetwork: record('names.addNetwork'),
    removeNetwork: record('names.removeNetwork'),
    apply: record('names.apply'),
    setServicePorts: record('names.setServicePorts'),
  } as unknown as SwarmNames;
  const balancers = { addNetwork: record('balancers.addNetwork'), removeNetwork: record('balancers.removeNetwork'), apply: record('balancers.apply') } as unknown as ServiceBalancers;
  const mesh = { apply: record('mesh.apply') };
  const take = () => calls.splice(0);
  return { e: new SwarmEndpoints(names, balancers, mesh), take };
}

describe('SwarmEndpoints', () => {
  it('adds each network once, to the names and the balancers', () => {
    const { e, take } = endpoints();
    e.addNetworks([APPNET, INGRESS]);
    e.addNetworks([APPNET]);
    assert.deepEqual(take(), [
      ['names.addNetwork', 'n1', 'appnet', { ingress: false }],
      ['balancers.addNetwork', 'n1', { ingress: false }],
      ['names.addNetwork', 'n0', 'ingress', { ingress: true }],
      ['balancers.addNetwork', 'n0', { ingress: true }],
    ]);
  });

  it("gives the ingress network's changes to the mesh alone, the others' to the names and the balancers", () => {
    const { e, take } = endpoints();
    e.addNetworks([APPNET, INGRESS]);
    take();
    const onIngress = change('e0');
    const onAppnet = change('e1', 'disable');
    e.apply('n0', onIngress);
    e.apply('n1', onAppnet);
    assert.deepEqual(take(), [
      ['mesh.apply', onIngress],
      ['names.apply', 'n1', onAppnet],
      ['balancers.apply', 'n1', onAppnet],
    ]);
  });

  it('ignores the changes of a network not added, or forgotten', () => {
    const { e, take } = endpoints();
    e.apply('n1', change('e1'));
    assert.deepEqual(take(), []);
    e.addNetworks([APPNET, INGRESS]);
    e.leftNetworks([]);
    take();
    e.apply('n1', change('e1'));
    e.apply('n0', change('e0'));
    assert.deepEqual(take(), []);
  });

  it('forgets the networks not among those left, and those alone', () => {
    const { e, take } = endpoints();
    e.addNetworks([APPNET, INGRESS, { id: 'n2', name: 'back', ingress: false }]);
    take();
    e.leftNetworks([APPNET]);
    assert.deepEqual(take(), [
      ['names.removeNetwork', 'n0'],
      ['balancers.removeNetwork', 'n0'],
      ['names.removeNetwork', 'n2'],
      ['balancers.removeNetwork', 'n2'],
    ]);
    e.apply('n1', change('e1'));
    assert.deepEqual(take().map((c) => c[0]), ['names.apply', 'balancers.apply']);
    // added again once forgotten
    e.addNetworks([INGRESS]);
    assert.deepEqual(take().map((c) => c[0]), ['names.addNetwork', 'balancers.addNetwork']);
  });

  it('sets every named port, and clears those of services no longer there', () => {
    const { e, take } = endpoints();
    const http: ServicePort[] = [{ name: 'http', protocol: 'tcp', targetPort: 80 }];
    const dns: ServicePort[] = [{ name: 'dns', protocol: 'udp', targetPort: 53 }];
    e.setServicePorts([
      { serviceId: 's1', ports: http },
      { serviceId: 's2', ports: dns },
    ]);
    assert.deepEqual(take(), [
      ['names.setServicePorts', 's1', http],
      ['names.setServicePorts', 's2', dns],
    ]);
    e.setServicePorts([{ serviceId: 's2', ports: dns }]);
    assert.deepEqual(take(), [
      ['names.setServicePorts', 's1', []],
      ['names.setServicePorts', 's2', dns],
    ]);
    e.setServicePorts([]);
    assert.deepEqual(take(), [['names.setServicePorts', 's2', []]]);
    e.setServicePorts([]);
    assert.deepEqual(take(), [], 'a service cleared once is cleared once');
  });
});
