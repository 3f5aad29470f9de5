import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { ServiceRecord, TaskRecord } from '../../../swarm/services/service-records.js';
import type { EndpointSpec } from '../../../swarm/services/service-types.js';
import type { NetworkAttachment, Service, ServiceStatus, Task } from '../../types/swarm.js';
import { networkAttachments, serviceToApi, taskToApi } from './to-api.js';

// Services and tasks as the reference engine wrote them (GET /services/{id}, with insertDefaults,
// GET /tasks/{id}, GET /services?status=true): each is made a record again, with every object's
// keys in reverse order, and must come back byte for byte.
const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../../../../../test/fixtures/${name}`, import.meta.url), 'utf8')) as Array<Record<string, string>>;
const created = fixture('dockerd-services.json');
const states = fixture('dockerd-service-states.json');

/** The value with the keys of every object in reverse order: the order is to-api's to restore. */
function reversed<T>(value: T): T {
  if (Array.isArray(value)) return value.map(reversed) as T;
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reversed(v)])) as T;
}

function serviceRecord(wire: Service): ServiceRecord {
  const endpoint = wire.Endpoint;
  const record: ServiceRecord = {
    id: wire.ID,
    createdAt: wire.CreatedAt,
    updatedAt: wire.UpdatedAt,
    spec: reversed(wire.Spec),
    endpoint: {
      ...(Object.keys(endpoint.Spec).length > 0 ? { spec: reversed(endpoint.Spec as EndpointSpec) } : {}),
      ports: (endpoint.Ports ?? []).map(reversed),
      virtualIps: (endpoint.VirtualIPs ?? []).map((v) => ({ networkId: v.NetworkID, addr: v.Addr })),
    },
  };
  if (wire.PreviousSpec !== undefined) record.previousSpec = reversed(wire.PreviousSpec);
  const u = wire.UpdateStatus;
  if (u !== undefined) record.updateStatus = { state: u.State as NonNullable<ServiceRecord['updateStatus']>['state'], startedAt: u.StartedAt!, message: u.Message ?? '', ...(u.CompletedAt !== undefined ? { completedAt: u.CompletedAt } : {}) };
  if (wire.JobStatus !== undefined) record.jobStatus = { iteration: wire.JobStatus.JobIteration.Index ?? 0, lastExecution: wire.JobStatus.LastExecution };
  return record;
}

function taskRecord(wire: Task): TaskRecord {
  const s = wire.Status;
  const c = s.ContainerStatus;
  return {
    id: wire.ID,
    createdAt: wire.CreatedAt,
    updatedAt: wire.UpdatedAt,
    serviceId: wire.ServiceID ?? '',
    serviceAnnotations: { name: 'svc', labels: { a: 'b' } },
    slot: wire.Slot ?? 0,
    nodeId: wire.NodeID ?? '',
    // a task keeps its service's TaskTemplate, Runtime and all
    spec: reversed({ ...wire.Spec, Runtime: 'container' }),
    status: {
      timestamp: s.Timestamp,
      state: s.State as TaskRecord['status']['state'],
      message: s.Message ?? '',
      ...(s.Err !== undefined ? { err: s.Err } : {}),
      ...(c !== undefined ? { containerStatus: { containerId: c.ContainerID, pid: c.PID, exitCode: c.ExitCode } } : {}),
      ...(s.PortStatus.Ports !== undefined ? { portStatus: s.PortStatus.Ports.map(reversed) } : {}),
    },
    desiredState: wire.DesiredState as TaskRecord['desiredState'],
    ...(wire.JobIteration !== undefined ? { jobIteration: wire.JobIteration.Index ?? 0 } : {}),
  };
}

describe('serviceToApi', () => {
  for (const c of [...created, ...states]) {
    it(c.name!, () => {
      const wire = JSON.parse(c.service!) as Service;
      const status: { status?: ServiceStatus } = wire.ServiceStatus !== undefined ? { status: reversed(wire.ServiceStatus) } : {};
      assert.equal(JSON.stringify(serviceToApi(serviceRecord(wire), wire.Version.Index, status)), c.service);
    });
  }
  for (const c of created) {
    it(`${c.name} with its defaults`, () => {
      const wire = JSON.parse(c.insertDefaults!) as Service;
      assert.equal(JSON.stringify(serviceToApi(serviceRecord(wire), wire.Version.Index)), c.insertDefaults);
    });
  }
});

describe('taskToApi', () => {
  for (const c of created.filter((c) => c.task !== undefined)) {
    it(`a task of ${c.name}`, () => {
      const wire = JSON.parse(c.task!) as Task;
      const networks: { networks?: NetworkAttachment[] } = wire.NetworksAttachments !== undefined ? { networks: wire.NetworksAttachments } : {};
      assert.equal(JSON.stringify(taskToApi(taskRecord(wire), wire.Version.Index, networks)), c.task);
    });
  }

  it('shows the ports a node published, a failure, and a global task without slot', () => {
    const wire: Task = {
      ID: 't1',
      Version: { Index: 3 },
      CreatedAt: '2026-11-26T10:55:17.485909324Z',
      UpdatedAt: '2026-11-26T10:55:20.708766473Z',
      Labels: {},
      Spec: { ContainerSpec: { Image: 'busybox', Isolation: 'default' }, ForceUpdate: 0 },
      ServiceID: 's1',
      NodeID: 'n1',
      Status: {
        Timestamp: '2026-11-26T10:55:20.447765798Z',
        State: 'failed',
        Message: 'started',
        Err: 'task: non-zero exit (3)',
        ContainerStatus: { ContainerID: 'c1', PID: 0, ExitCode: 3 },
        PortStatus: { Ports: [{ Protocol: 'tcp', TargetPort: 80, PublishedPort: 9000, PublishMode: 'host' }] },
      },
      DesiredState: 'shutdown',
    };
    assert.equal(JSON.stringify(taskToApi(taskRecord(wire), 3)), JSON.stringify(wire));
  });

  it("shows a task's network as dockerd does, as it was when the task's address was given", () => {
    const wire = created.map((c) => c.task).filter((t) => t !== undefined).map((t) => JSON.parse(t) as Task).find((t) => t.NetworksAttachments?.length === 1)!;
    const network = {
      id: 'qz1uwisg74kq3fj3yj06ew3dg',
      createdAt: '2026-11-26T10:56:43.168379256Z',
      updatedAt: '2026-11-26T10:56:43.169018546Z',
      spec: { name: 'ov', labels: {}, options: {}, internal: false, attachable: false, enableIPv6: false, ipam: { options: {}, entries: [] } },
      pools: [{ subnet: '10.0.1.0/24', gateway: '10.0.1.1' }],
      vxlanId: 4097,
    };
    const record = { ...taskRecord(wire), networks: [{ network, version: 1237, addresses: ['10.0.1.10/24'] }] };
    assert.equal(JSON.stringify(networkAttachments(record)), JSON.stringify(wire.NetworksAttachments));
  });
});
