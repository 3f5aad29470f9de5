// Ingress published ports: the lowest free dynamic port for 0, per protocol, any free port asked
// for, and controlapi's conflicts in its words.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServiceRecord } from '../services/service-records.js';
import type { PortConfig } from '../services/service-types.js';
import { allocatePorts, checkPortConflicts, ingressPortKeys, portKey } from './port-allocation.js';

const ingress = (TargetPort: number, PublishedPort = 0, Protocol: PortConfig['Protocol'] = 'tcp'): PortConfig => ({ Protocol, TargetPort, PublishedPort, PublishMode: 'ingress' });
const host = (TargetPort: number, PublishedPort: number): PortConfig => ({ Protocol: 'tcp', TargetPort, PublishedPort, PublishMode: 'host' });

function service(id: string, name: string, asked: PortConfig[], published: PortConfig[] = asked): ServiceRecord {
  return {
    id,
    createdAt: '',
    updatedAt: '',
    spec: { Name: name, Labels: {}, TaskTemplate: { ForceUpdate: 0 }, Mode: { Replicated: { Replicas: 1 } }, EndpointSpec: { Mode: 'vip', Ports: asked } },
    endpoint: { ports: published, virtualIps: [] },
  } as ServiceRecord;
}

describe('allocatePorts', () => {
  it('gives 0 the lowest free dynamic port of its protocol, skipping those held and those the spec asks for', () => {
    const held = new Set([portKey(ingress(1, 30000))]);
    const ports = allocatePorts([ingress(80), ingress(81, 30001), ingress(53, 0, 'udp'), host(82, 0)], [], held);
    assert.deepEqual(
      ports.map((p) => `${p.PublishedPort}/${p.Protocol}`),
      ['30002/tcp', '30001/tcp', '30000/udp', '0/tcp'],
    );
  });

  it('keeps the port a service had for the same target across an update', () => {
    const previous = [ingress(80, 30007)];
    assert.equal(allocatePorts([ingress(80)], previous, new Set(ingressPortKeys(previous)))[0]!.PublishedPort, 30007);
  });

  it('takes any port asked for, inside the dynamic range or not', () => {
    assert.deepEqual(allocatePorts([ingress(80, 8080), ingress(81, 31000)], [], new Set()).map((p) => p.PublishedPort), [8080, 31000]);
  });
});

describe('checkPortConflicts', () => {
  const web = service('s1', 'web', [ingress(80, 8080), host(81, 9000)]);
  it("refuses an ingress port another service publishes, in swarmkit's words", () => {
    assert.throws(() => checkPortConflicts([ingress(80, 8080)], 's2', [web]), { message: "rpc error: code = InvalidArgument desc = port '8080' is already in use by service 'web' (s1) as an ingress port" });
    assert.throws(() => checkPortConflicts([host(80, 8080)], 's2', [web]), { message: "rpc error: code = InvalidArgument desc = port '8080' is already in use by service 'web' (s1) as an ingress port" });
    assert.throws(() => checkPortConflicts([ingress(80, 9000)], 's2', [web]), { message: "rpc error: code = InvalidArgument desc = port '9000' is already in use by service 'web' (s1) as a host-published port" });
  });

  it('lets host-mode ports repeat, other protocols share a number, and a service keep its own', () => {
    checkPortConflicts([host(80, 9000), ingress(80, 8080, 'udp')], 's2', [web]);
    checkPortConflicts([ingress(80, 8080)], 's1', [web]);
  });

  it('sees the ports a service was given, not only those it asked for', () => {
    const dynamic = service('s3', 'dyn', [ingress(80)], [ingress(80, 30000)]);
    assert.throws(() => checkPortConflicts([ingress(80, 30000)], 's2', [dynamic]), { message: "rpc error: code = InvalidArgument desc = port '30000' is already in use by service 'dyn' (s3) as an ingress port" });
  });
});
