// A service's endpoint: a VIP on the ingress network first when it publishes through the routing
// mesh, then one per network it is on; swarmkit's FailedPrecondition without an ingress network.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EngineError } from '../../errors.js';
import type { SwarmNetworkRecord } from '../networks/network-records.js';
import { parseNodePortRanges } from '../node-port-ranges.js';
import type { PortConfig, ServiceSpec } from '../services/service-types.js';
import { addressKey } from './address-allocation.js';
import { allocateEndpoint } from './endpoint-allocation.js';
import { portKey } from './port-allocation.js';

const RANGES = parseNodePortRanges('1-65535', '30000-32767');

function network(id: string, subnet: string, gateway: string, ingress = false): SwarmNetworkRecord {
  return {
    id,
    createdAt: '',
    updatedAt: '',
    spec: { name: id, labels: {}, options: {}, internal: false, attachable: false, enableIPv6: false, ...(ingress ? { ingress: true as const } : {}), ipam: { options: {}, entries: [] } },
    pools: [{ subnet, gateway }],
    vxlanId: ingress ? 4096 : 4097,
  };
}

const INGRESS = network('ingress', '10.0.0.0/24', '10.0.0.1', true);
const N1 = network('n1', '10.0.1.0/24', '10.0.1.1');
const N2 = network('n2', '10.0.2.0/24', '10.0.2.1');
const byId = (...networks: SwarmNetworkRecord[]) => new Map(networks.map((n) => [n.id, n]));

const port = (PublishMode: PortConfig['PublishMode'], PublishedPort: number): PortConfig => ({ Protocol: 'tcp', TargetPort: 80, PublishedPort, PublishMode });

function spec(ports: PortConfig[], networks: string[]): ServiceSpec {
  return {
    Name: 'web',
    Labels: {},
    TaskTemplate: { ForceUpdate: 0, Networks: networks.map((Target) => ({ Target })) },
    Mode: { Replicated: { Replicas: 1 } },
    EndpointSpec: { Mode: 'vip', Ports: ports },
  } as ServiceSpec;
}

describe('allocateEndpoint', () => {
  it('gives a service publishing through the mesh a VIP on the ingress network first, then one per network it is on', () => {
    // the ingress network last in the map: the order is the allocator's, not the map's
    const { endpoint, claims } = allocateEndpoint(spec([port('ingress', 8080)], ['n2', 'n1']), undefined, byId(N1, N2, INGRESS), new Set(), RANGES);
    assert.deepEqual(endpoint.virtualIps, [
      { networkId: 'ingress', addr: '10.0.0.2/24' },
      { networkId: 'n2', addr: '10.0.2.2/24' },
      { networkId: 'n1', addr: '10.0.1.2/24' },
    ]);
    assert.deepEqual(claims, {
      claim: [portKey(port('ingress', 8080)), addressKey('ingress', '10.0.0.2/24'), addressKey('n2', '10.0.2.2/24'), addressKey('n1', '10.0.1.2/24')],
      release: [],
    });
  });

  it('refuses a service publishing through the mesh when the swarm has no ingress network, in swarmkit\'s words', () => {
    assert.throws(
      () => allocateEndpoint(spec([port('ingress', 8080)], ['n1']), undefined, byId(N1, N2), new Set(), RANGES),
      (err: unknown) => {
        assert.ok(err instanceof EngineError);
        assert.deepEqual([err.kind, err.message], ['invalidParameter', 'rpc error: code = FailedPrecondition desc = service needs ingress network, but no ingress network is present']);
        return true;
      },
    );
  });

  it('needs no ingress network for host-mode ports, nor takes a VIP there', () => {
    const { endpoint } = allocateEndpoint(spec([port('host', 8080)], ['n1']), undefined, byId(N1), new Set(), RANGES);
    assert.deepEqual(endpoint.virtualIps, [{ networkId: 'n1', addr: '10.0.1.2/24' }]);
    const withIngress = allocateEndpoint(spec([port('host', 8080)], ['n1']), undefined, byId(INGRESS, N1), new Set(), RANGES);
    assert.deepEqual(withIngress.endpoint.virtualIps, [{ networkId: 'n1', addr: '10.0.1.2/24' }]);
    const unpublished = allocateEndpoint(spec([], ['n1']), undefined, byId(INGRESS, N1), new Set(), RANGES);
    assert.deepEqual(unpublished.endpoint.virtualIps, [{ networkId: 'n1', addr: '10.0.1.2/24' }]);
  });
});
