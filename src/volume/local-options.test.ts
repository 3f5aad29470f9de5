import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { localMountOptions, mountErrorDetail } from './local-options.js';

describe('localMountOptions', () => {
  it('is a plain directory without options', () => {
    assert.equal(localMountOptions(null), undefined);
    assert.equal(localMountOptions({}), undefined);
  });

  it('takes type, device and o', () => {
    assert.deepEqual(localMountOptions({ type: 'tmpfs', device: 'tmpfs', o: 'size=1m' }), { type: 'tmpfs', device: 'tmpfs', o: 'size=1m' });
  });

  it("refuses what dockerd refuses, in its words", () => {
    assert.throws(() => localMountOptions({ foo: 'bar' }), { message: 'invalid option: "foo"' });
    assert.throws(() => localMountOptions({ type: 'tmpfs' }), { message: 'missing required option: "device"' });
    assert.throws(() => localMountOptions({ device: 'tmpfs' }), { message: 'missing required option: "type"' });
    assert.throws(() => localMountOptions({ o: 'size=1m' }), { message: 'missing required option: "device"' });
    assert.throws(() => localMountOptions({ size: '10m', type: 'tmpfs', device: 'tmpfs' }), { message: 'quota size requested but no quota support' });
  });
});

describe('mountErrorDetail', () => {
  it("splits flags from data as Go's mount.ParseOptions", () => {
    assert.equal(mountErrorDetail('bind'), ', flags: 0x1000');
    assert.equal(mountErrorDetail('size=1m,bogusflag'), ', data: size=1m,bogusflag');
    assert.equal(mountErrorDetail('ro,addr=127.0.0.1'), ', flags: 0x1, data: addr=127.0.0.1');
    assert.equal(mountErrorDetail(''), '');
  });
});
