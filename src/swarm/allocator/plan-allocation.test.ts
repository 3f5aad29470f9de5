// The allocator's pass over the tasks: an address per network each, distinct, then `pending`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Versioned } from '../cluster/cluster-state.js';
import type { SwarmNetworkRecord } from '../networks/network-records.js';
import type { ServiceRecord, TaskRecord } from '../services/service-records.js';
import type { TaskWrite } from '../services/service-state.js';
import { addressKey } from './address-allocation.js';
import { planAllocation, taskAddressKeys } from './plan-allocation.js';

const NOW = BigInt(Date.parse('2026-11-26T10:00:00Z')) * 1_000_000n;

function network(id: string, subnet: string, gateway: string): Versioned<SwarmNetworkRecord> {
  return {
    version: 7,
    value: { id, createdAt: '', updatedAt: '', spec: { name: id, labels: {}, options: {}, internal: false, attachable: false, enableIPv6: false, ipam: { options: {}, entries: [] } }, pools: [{ subnet, gateway }], vxlanId: 4097 },
  };
}

function task(id: string, networks: string[], state: TaskRecord['status']['state'] = 'new'): Versioned<TaskRecord> {
  return {
    version: 1,
    value: {
      id,
      createdAt: '',
      updatedAt: '',
      serviceId: 's1',
      serviceAnnotations: { name: 's1', labels: {} },
      slot: 1,
      nodeId: '',
      spec: { ForceUpdate: 0, ...(networks.length > 0 ? { Networks: networks.map((Target) => ({ Target })) } : {}) },
      status: { timestamp: '', state, message: 'created' },
      desiredState: 'running',
    },
  };
}

const NETWORKS = new Map([network('n1', '10.0.1.0/24', '10.0.1.1'), network('n2', '10.0.2.0/30', '10.0.2.1')].map((n) => [n.value.id, n]));
const puts = (writes: TaskWrite[]) => writes.map((w) => ('put' in w ? w : assert.fail('a delete')));

describe('planAllocation', () => {
  it('gives each task an address on each of its networks, none held twice, and makes it pending', () => {
    const writes = puts(planAllocation([task('t1', ['n1']), task('t2', ['n1', 'n2'])], new Map(), NETWORKS, new Set([addressKey('n1', '10.0.1.2/24')]), NOW));
    assert.deepEqual(
      writes.map((w) => [w.put.id, w.put.status.state, w.put.status.message, w.put.networks!.map((a) => `${a.network.id}@${a.version}:${a.addresses.join()}`)]),
      [
        ['t1', 'pending', 'pending task scheduling', ['n1@7:10.0.1.3/24']],
        ['t2', 'pending', 'pending task scheduling', ['n1@7:10.0.1.4/24', 'n2@7:10.0.2.2/30']],
      ],
    );
    assert.deepEqual(writes[1]!.claim, [addressKey('n1', '10.0.1.4/24'), addressKey('n2', '10.0.2.2/30')]);
    assert.deepEqual(taskAddressKeys(writes[1]!.put), writes[1]!.claim);
  });

  it("takes the service's networks when the task names none, and allocates a task without networks too", () => {
    const service = { id: 's1', spec: { Name: 's1', Labels: {}, TaskTemplate: { ForceUpdate: 0 }, Mode: {}, Networks: [{ Target: 'n2' }] } } as unknown as ServiceRecord;
    const [w] = puts(planAllocation([task('t1', [])], new Map([['s1', service]]), NETWORKS, new Set(), NOW));
    assert.deepEqual(w!.put.networks!.map((a) => a.addresses), [['10.0.2.2/30']]);
    const [bare] = puts(planAllocation([task('t2', [])], new Map(), NETWORKS, new Set(), NOW));
    assert.deepEqual(bare!.put.networks, []);
  });

  it('leaves a task waiting when a network of it is full, and what it would have taken free', () => {
    const writes = puts(planAllocation([task('t1', ['n1', 'n2']), task('t2', ['n2']), task('t3', ['n1', 'n2'])], new Map(), NETWORKS, new Set(), NOW));
    assert.deepEqual(
      writes.map((w) => [w.put.id, w.put.networks!.map((a) => a.addresses.join())]),
      [['t1', ['10.0.1.2/24', '10.0.2.2/30']]],
    );
  });

  it('gives a task publishing through the routing mesh an address on the ingress network first, and one publishing otherwise none there', () => {
    const ingress = network('ingress', '10.0.0.0/24', '10.0.0.1');
    ingress.value.spec.ingress = true;
    // the ingress network last in the map: the order is the allocator's
    const networks = new Map([...NETWORKS, [ingress.value.id, ingress]]);
    const published = (t: Versioned<TaskRecord>, PublishMode: 'ingress' | 'host') => {
      t.value.endpoint = { ports: [{ Protocol: 'tcp', TargetPort: 80, PublishedPort: 8080, PublishMode }], virtualIps: [] };
      return t;
    };
    const writes = puts(planAllocation([published(task('t1', ['n2', 'n1']), 'ingress'), published(task('t2', ['n1']), 'host'), task('t3', ['n1'])], new Map(), networks, new Set(), NOW));
    assert.deepEqual(
      writes.map((w) => [w.put.id, w.put.networks!.map((a) => `${a.network.id}:${a.addresses.join()}`)]),
      [
        ['t1', ['ingress:10.0.0.2/24', 'n2:10.0.2.2/30', 'n1:10.0.1.2/24']],
        ['t2', ['n1:10.0.1.3/24']],
        ['t3', ['n1:10.0.1.4/24']],
      ],
    );
  });

  it('passes over tasks allocated already or placed', () => {
    const allocated = task('t1', ['n1']);
    allocated.value.networks = [];
    assert.deepEqual(planAllocation([allocated, task('t2', ['n1'], 'assigned')], new Map(), NETWORKS, new Set(), NOW), []);
  });
});
