import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeCreateBody } from './create-body.js';

describe('decodeCreateBody', () => {
  it('refuses a body without any Config field, as dockerd', () => {
    for (const body of [null, {}, { HostConfig: {} }]) {
      assert.throws(() => decodeCreateBody(body), { kind: 'invalidParameter', message: 'Config cannot be empty in order to create a container' });
    }
  });
  it('has no HostConfig when the body gave none', () => {
    assert.equal(decodeCreateBody({ Image: 'x' }).hostConfig, null);
    assert.deepEqual(decodeCreateBody({ Image: 'x', HostConfig: {} }).hostConfig, {});
  });
  it('takes Cmd, Entrypoint and CapAdd as a single string too', () => {
    const d = decodeCreateBody({ Image: 'x', Cmd: 'echo hi', Entrypoint: 'sh', HostConfig: { CapAdd: 'NET_ADMIN' } });
    assert.deepEqual(d.config.Cmd, ['echo hi']);
    assert.deepEqual(d.config.Entrypoint, ['sh']);
    assert.deepEqual(d.hostConfig?.CapAdd, ['NET_ADMIN']);
  });
  it('keeps null for Go pointers and lists, and leaves value fields unset for null', () => {
    const d = decodeCreateBody({ Image: 'x', Cmd: null, Tty: null, HostConfig: { PidsLimit: null, Memory: null, Binds: null } });
    assert.equal(d.config.Cmd, null);
    assert.equal('Tty' in d.config, false);
    assert.equal(d.hostConfig?.PidsLimit, null);
    assert.equal(d.hostConfig && 'Memory' in d.hostConfig, false);
    assert.equal(d.hostConfig?.Binds, null);
  });
  it('ignores unknown fields', () => {
    assert.deepEqual(decodeCreateBody({ Image: 'x', Bogus: 1, HostConfig: { Bogus: 2 } }), { config: { Image: 'x' }, hostConfig: {}, networkingConfig: {} });
  });
  it("answers a value of the wrong type with Go's message and a 500", () => {
    assert.throws(() => decodeCreateBody({ Image: 'x', HostConfig: { Memory: 'abc' } }), {
      kind: 'system',
      message: 'json: cannot unmarshal string into Go struct field HostConfig.HostConfig.Memory of type int64',
    });
    assert.throws(() => decodeCreateBody({ Image: 'x', Cmd: 5 }), {
      kind: 'system',
      message: 'json: cannot unmarshal number into Go struct field ContainerConfigWrapper.Cmd of type []string',
    });
    assert.throws(() => decodeCreateBody({ Image: 'x', HostConfig: { BlkioWeight: -1 } }), {
      kind: 'system',
      message: 'json: cannot unmarshal number -1 into Go struct field HostConfig.HostConfig.BlkioWeight of type uint16',
    });
    assert.throws(() => decodeCreateBody({ Image: 'x', HostConfig: { RestartPolicy: { MaximumRetryCount: 1.5 } } }), {
      kind: 'system',
      message: 'json: cannot unmarshal number 1.5 into Go struct field RestartPolicy.HostConfig.RestartPolicy.MaximumRetryCount of type int',
    });
    assert.throws(() => decodeCreateBody([1]), { kind: 'system' });
  });
  it('uses top-level HostConfig fields when there is no HostConfig (the legacy wrapper)', () => {
    const d = decodeCreateBody({ Image: 'x', Privileged: true, Binds: ['/a:/b'] });
    assert.deepEqual(d.hostConfig, { Privileged: true, Binds: ['/a:/b'] });
  });
  it('carries only Memory, MemorySwap, CpuShares, CpusetCpus and VolumeDriver from the top level into a HostConfig', () => {
    const d = decodeCreateBody({ Image: 'x', Privileged: true, Memory: 10485760, Cpuset: '0', HostConfig: { CpuShares: 5 } });
    assert.deepEqual(d.hostConfig, { CpuShares: 5, Memory: 10485760, CpusetCpus: '0' });
  });
  it('decodes NetworkingConfig endpoints, keeping a null one for the check to refuse', () => {
    const d = decodeCreateBody({ Image: 'x', NetworkingConfig: { EndpointsConfig: { a: { Aliases: ['x'] }, b: null } } });
    assert.deepEqual(d.networkingConfig, { EndpointsConfig: { a: { Aliases: ['x'] }, b: null } });
  });
  it('decodes PortBindings, ExposedPorts and ConsoleSize', () => {
    const d = decodeCreateBody({ Image: 'x', ExposedPorts: { '80/tcp': { x: 1 } }, HostConfig: { PortBindings: { '80/tcp': [{ HostPort: '8080' }], '81': null }, ConsoleSize: [10] } });
    assert.deepEqual(d.config.ExposedPorts, { '80/tcp': {} });
    assert.deepEqual(d.hostConfig?.PortBindings, { '80/tcp': [{ HostPort: '8080' }], '81': null });
    assert.deepEqual(d.hostConfig?.ConsoleSize, [10, 0]);
  });
});
