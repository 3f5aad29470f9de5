// The allocations' keys against a real LocalStore: claimed in their holder's transaction, never
// twice, released with it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ClusterState } from '../cluster/cluster-state.js';
import { LocalStore } from '../store/local-store.js';
import type { ServiceRecord, TaskRecord } from './service-records.js';
import { ServiceState } from './service-state.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'berth-service-state-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const PORT = '/allocation/ports/tcp/30000';
const VIP = '/allocation/addresses/n1/10.0.1.2';
const ADDR = '/allocation/addresses/n1/10.0.1.3';

function service(id: string, name: string): ServiceRecord {
  return {
    id,
    createdAt: '',
    updatedAt: '',
    spec: { Name: name, Labels: {}, TaskTemplate: { ForceUpdate: 0 }, Mode: { Replicated: { Replicas: 1 } } },
    endpoint: { ports: [{ Protocol: 'tcp', TargetPort: 80, PublishedPort: 30000, PublishMode: 'ingress' }], virtualIps: [{ networkId: 'n1', addr: '10.0.1.2/24' }] },
  };
}

function task(id: string): TaskRecord {
  return {
    id,
    createdAt: '',
    updatedAt: '',
    serviceId: 's1',
    serviceAnnotations: { name: 'web', labels: {} },
    slot: 1,
    nodeId: '',
    spec: { ForceUpdate: 0 },
    status: { timestamp: '', state: 'pending', message: '' },
    desiredState: 'running',
  };
}

describe('ServiceState allocations', () => {
  it('claims keys with a service or a task, refuses a key held, and releases them with their holder', async () => {
    const store = await LocalStore.open(path.join(scratch, 'store'));
    try {
      const services = new ServiceState(new ClusterState(store));
      assert.equal(await services.createService(service('s1', 'web'), { claim: [PORT, VIP], release: [] }), true);
      // another service claiming the same port, as a manager that read before the first wrote
      assert.equal(await services.createService(service('s2', 'api'), { claim: [PORT], release: [] }), false);
      assert.equal(await services.service('s2'), undefined);
      assert.deepEqual([...(await services.heldAllocations())].sort(), [VIP, PORT]);

      assert.equal(await services.writeTasks([{ put: task('t1'), version: 0, claim: [ADDR] }]), true);
      assert.equal(await services.writeTasks([{ put: task('t2'), version: 0, claim: [ADDR] }]), false);
      const t1 = (await services.task('t1'))!;
      assert.equal(await services.writeTasks([{ delete: 't1', version: t1.version, release: [ADDR] }]), true);

      const s1 = (await services.service('s1'))!;
      // an update that keeps nothing: the port goes, the address stays
      assert.equal(await services.putService(s1.version, { ...s1.value, endpoint: { ports: [], virtualIps: s1.value.endpoint.virtualIps } }, { claim: [], release: [PORT] }), true);
      assert.deepEqual([...(await services.heldAllocations())], [VIP]);
      const updated = (await services.service('s1'))!;
      await services.deleteService(updated.value, updated.version);
      assert.deepEqual([...(await services.heldAllocations())], []);
    } finally {
      await store.close();
    }
  });
});
