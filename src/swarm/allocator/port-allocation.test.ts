// Ingress published ports: the lowest free dynamic port for 0, per protocol, any free port of the
// node port range asked for, and controlapi's conflicts in its words.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServiceRecord } from '../services/service-records.js';
import type { PortConfig } from '../services/service-types.js';
import { parseNodePortRanges } from '../node-port-ranges.js';
import { allocatePorts, checkPortConflicts, ingressPortKeys, portKey } from './port-allocation.js';

const ingress = (TargetPort: number, PublishedPort = 0, Protocol: PortConfig['Protocol'] = 'tcp'): PortConfig => ({ Protocol, TargetPort, PublishedPort, PublishMode: 'ingress' });
const host = (TargetPort: number, PublishedPort: number): PortConfig => ({ Protocol: 'tcp', TargetPort, PublishedPort, PublishMode: 'host' });
const defaults = parseNodePortRanges('1-65535', '30000-32767');

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
    const ports = allocatePorts([ingress(80), ingress(81, 30001), ingress(53, 0, 'udp'), host(82, 0)], [], held, defaults);
    assert.deepEqual(
      ports.map((p) => `${p.PublishedPort}/${p.Protocol}`),
      ['30002/tcp', '30001/tcp', '30000/udp', '0/tcp'],
    );
  });

  it('keeps the port a service had for the same target across an update', () => {
    const previous = [ingress(80, 30007)];
    assert.equal(allocatePorts([ingress(80)], previous, new Set(ingressPortKeys(previous)), defaults)[0]!.PublishedPort, 30007);
  });

  it('takes any port asked for, inside the dynamic range or not', () => {
    assert.deepEqual(allocatePorts([ingress(80, 8080), ingress(81, 31000)], [], new Set(), defaults).map((p) => p.PublishedPort), [8080, 31000]);
  });
});

describe('allocatePorts with the daemon\'s own node port ranges', () => {
  const ranges = parseNodePortRanges('20000-20999', '20500-20501');
  const invalid = (message: string) => ({ kind: 'invalidParameter', message: `rpc error: code = InvalidArgument desc = ${message}` });

  it('hands out 0 from the dynamic range, until none is free', () => {
    const ports = allocatePorts([ingress(80), ingress(81, 20000), ingress(82)], [], new Set(), ranges);
    assert.deepEqual(ports.map((p) => p.PublishedPort), [20500, 20000, 20501]);
    assert.throws(() => allocatePorts([ingress(80)], [], new Set(ingressPortKeys(ports)), ranges), invalid('no available tcp port in the dynamic range 20500-20501'));
  });

  it('refuses a port asked for outside the node port range, in either mode', () => {
    assert.throws(() => allocatePorts([ingress(80, 8080)], [], new Set(), ranges), invalid('published port 8080/tcp is outside the node port range 20000-20999'));
    assert.throws(() => allocatePorts([host(80, 21000)], [], new Set(), ranges), invalid('published port 21000/tcp is outside the node port range 20000-20999'));
  });

  it('keeps a port the service had only while it lies in the node port range', () => {
    assert.equal(allocatePorts([ingress(80)], [ingress(80, 20900)], new Set(), ranges)[0]!.PublishedPort, 20900);
    assert.equal(allocatePorts([ingress(80)], [ingress(80, 30000)], new Set(), ranges)[0]!.PublishedPort, 20500);
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
