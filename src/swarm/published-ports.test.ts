import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PortConfig_Protocol } from '../generated/libnetwork/agent_pb.js';
import { parseNodePortRanges } from './node-port-ranges.js';
import { checkPortConfigs, PublishedPorts } from './published-ports.js';

const { TCP, UDP, SCTP } = PortConfig_Protocol;
const defaults = () => new PublishedPorts(parseNodePortRanges('1-65535', '30000-32767'));

function invalid(fn: () => unknown, message: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.equal((err as Error).name, 'InvalidEndpointRecordError');
    assert.equal((err as { kind: string }).kind, 'invalidParameter');
    assert.match((err as Error).message, message);
    return true;
  });
}

describe('checkPortConfigs', () => {
  it('takes a target port once per protocol', () => {
    checkPortConfigs([{ targetPort: 53, protocol: TCP }, { targetPort: 53, protocol: UDP }, { targetPort: 53, protocol: SCTP }]);
    invalid(() => checkPortConfigs([{ targetPort: 80 }, { targetPort: 80, publishedPort: 8080 }]), /target port 80\/tcp is given more than once/);
  });

  it('wants port names that can be DNS labels', () => {
    checkPortConfigs([{ name: 'http', targetPort: 80 }, { name: 'A-1', targetPort: 81 }, { name: 'x'.repeat(63), targetPort: 82 }]);
    for (const name of ['-http', 'http-', 'ht_tp', 'ht.tp', 'x'.repeat(64), 'hé', ' ']) {
      invalid(() => checkPortConfigs([{ name, targetPort: 80 }]), /is not a DNS label/);
    }
  });

  it('wants real ports and known protocols', () => {
    invalid(() => checkPortConfigs([{ targetPort: 0 }]), /target port 0\/tcp is not a port/);
    invalid(() => checkPortConfigs([{ targetPort: 65536 }]), /target port 65536\/tcp is not a port/);
    invalid(() => checkPortConfigs([{ targetPort: 80, publishedPort: 70000, protocol: UDP }]), /published port 70000\/udp is not a port/);
    invalid(() => checkPortConfigs([{ targetPort: 80, protocol: 9 as PortConfig_Protocol }]), /unknown protocol 9/);
  });
});

describe('PublishedPorts', () => {
  it('keeps a given published port (-p 8080:80 works as with Docker) and refuses it twice, naming its holder', () => {
    const ports = defaults();
    assert.deepEqual(ports.admit('web', [{ targetPort: 80, publishedPort: 8080 }]).map((p) => p.publishedPort), [8080]);
    invalid(() => ports.admit('api', [{ targetPort: 81, publishedPort: 8080 }]), /published port 8080\/tcp is already in use by web/);
    invalid(() => ports.admit('api', [{ targetPort: 81, publishedPort: 9000 }, { targetPort: 82, publishedPort: 9000 }]), /9000\/tcp is already in use by another port of the same endpoint/);
    // the same number in another protocol is another port
    assert.deepEqual(ports.admit('dns', [{ targetPort: 80, publishedPort: 8080, protocol: UDP }]).map((p) => p.publishedPort), [8080]);
  });

  it('hands out published port 0 in order from the dynamic range, skipping ports taken', () => {
    const ports = defaults();
    ports.admit('given', [{ targetPort: 1, publishedPort: 30001 }]);
    const got = ports.admit('a', [{ targetPort: 80 }, { targetPort: 81 }, { targetPort: 82 }]).map((p) => p.publishedPort);
    assert.deepEqual(got, [30000, 30002, 30003]);
    assert.deepEqual(ports.admit('b', [{ targetPort: 80 }]).map((p) => p.publishedPort), [30004]);
    assert.deepEqual(ports.admit('c', [{ targetPort: 80, protocol: UDP }]).map((p) => p.publishedPort), [30000]);
  });

  it('refuses a given port outside the node port range, and runs out of dynamic ports with a clear error', () => {
    const ports = new PublishedPorts(parseNodePortRanges('20000-40000', '30000-30001'));
    invalid(() => ports.admit('web', [{ targetPort: 80, publishedPort: 8080 }]), /published port 8080\/tcp is outside the node port range 20000-40000/);
    ports.admit('a', [{ targetPort: 80 }, { targetPort: 81 }]);
    invalid(() => ports.admit('b', [{ targetPort: 80 }]), /no published port is free in the dynamic node port range 30000-30001 for 80\/tcp/);
  });

  it('admits all ports of a record or none, and gives ports back on release', () => {
    const ports = new PublishedPorts(parseNodePortRanges('1-65535', '30000-30000'));
    ports.admit('holder', [{ targetPort: 1, publishedPort: 9000 }]);
    invalid(() => ports.admit('x', [{ targetPort: 80, publishedPort: 8080 }, { targetPort: 81 }, { targetPort: 82, publishedPort: 9000 }]), /9000\/tcp is already in use by holder/);
    // nothing of the refused record stayed taken
    const taken = ports.admit('y', [{ targetPort: 80, publishedPort: 8080 }, { targetPort: 81 }]);
    assert.deepEqual(taken.map((p) => p.publishedPort), [8080, 30000]);
    ports.release(taken);
    assert.deepEqual(ports.admit('z', [{ targetPort: 80, publishedPort: 8080 }, { targetPort: 81 }]).map((p) => p.publishedPort), [8080, 30000]);
  });
});

describe('parseNodePortRanges', () => {
  it('takes START-END within 1-65535, the dynamic range inside the other', () => {
    assert.deepEqual(parseNodePortRanges('1-65535', '30000-32767'), { range: { start: 1, end: 65535 }, dynamic: { start: 30000, end: 32767 } });
    assert.deepEqual(parseNodePortRanges('8000-9000', '8500').dynamic, { start: 8500, end: 8500 });
    assert.throws(() => parseNodePortRanges('0-100', '1-2'), /invalid node-port-range "0-100"/);
    assert.throws(() => parseNodePortRanges('1-65536', '1-2'), /invalid node-port-range/);
    assert.throws(() => parseNodePortRanges('1-100', '50-40'), /invalid dynamic-node-port-range "50-40"/);
    assert.throws(() => parseNodePortRanges('1-100', 'x'), /invalid dynamic-node-port-range/);
    assert.throws(() => parseNodePortRanges('1-1000', '900-1001'), /dynamic-node-port-range 900-1001 must lie inside node-port-range 1-1000/);
  });
});
