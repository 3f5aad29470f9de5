import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { containerDevices, deviceNumbers, devicesFromPath, parseDeviceCgroupRule } from './devices.js';

describe('devices', () => {
  it('parses device cgroup rules, * as any', () => {
    assert.deepEqual(parseDeviceCgroupRule('c 1:3 mr'), { allow: true, type: 'c', major: 1, minor: 3, access: 'mr' });
    assert.deepEqual(parseDeviceCgroupRule('a *:* rwm'), { allow: true, type: 'a', major: -1, minor: -1, access: 'rwm' });
    assert.deepEqual(parseDeviceCgroupRule('b 8:* r'), { allow: true, type: 'b', major: 8, minor: -1, access: 'r' });
  });

  it("refuses other rules in dockerd's words", () => {
    for (const rule of ['c 1:3', 'x 1:3 r', 'c 1:3 rwmx', 'c1:3 r', 'c 1:3 q', ' c 1:3 r']) {
      assert.throws(() => parseDeviceCgroupRule(rule), { kind: 'invalidParameter', message: `invalid device cgroup rule format: '${rule}'` });
    }
  });

  it('splits a dev_t as glibc does', () => {
    assert.deepEqual(deviceNumbers(0x0103n), { major: 1, minor: 3 });
    // major 259, minor 300 (an NVMe partition): bits beyond the old 8:8 layout
    assert.deepEqual(deviceNumbers((259n << 8n) | (300n & 0xffn) | ((300n & ~0xffn) << 12n)), { major: 259, minor: 300 });
  });

  it('maps a host device to its path in the container, with its cgroup rule', () => {
    const found = devicesFromPath('/dev/null', '/dev/mynull', 'rw');
    assert.deepEqual(found.devices, [{ path: '/dev/mynull', type: 'c', major: 1, minor: 3, fileMode: 0o666, uid: 0, gid: 0 }]);
    assert.deepEqual(found.rules, [{ allow: true, type: 'c', major: 1, minor: 3, access: 'rw' }]);
  });

  it('takes every device under a directory, and refuses a path with none', () => {
    const found = devicesFromPath('/dev', '/hostdev', 'r');
    assert.ok(found.devices.some((d) => d.path === '/hostdev/null' && d.major === 1 && d.minor === 3));
    assert.ok(found.devices.every((d) => d.path.startsWith('/hostdev/')));
    assert.throws(() => devicesFromPath('/etc/hostname', '/x', 'rwm'), {
      kind: 'invalidParameter',
      message: 'error gathering device information while adding custom device "/etc/hostname": not a device node',
    });
    assert.throws(() => devicesFromPath('/no/such', '/x', 'rwm'), /adding custom device "\/no\/such": ENOENT/);
  });

  it('gives a privileged container the host devices and no rules of its own', () => {
    const { devices, rules } = containerDevices({ privileged: true, devices: [{ PathOnHost: '/dev/null', PathInContainer: '/dev/null', CgroupPermissions: 'r' }] });
    assert.deepEqual(rules, []);
    assert.ok(devices.some((d) => d.path === '/dev/null'));
    assert.ok(!devices.some((d) => d.path === '/dev/console' || d.path.startsWith('/dev/pts/')));
    assert.equal(devices.filter((d) => d.path === '/dev/null').length, 1);
  });

  it('adds DeviceCgroupRules after the devices', () => {
    const { devices, rules } = containerDevices({ devices: [{ PathOnHost: '/dev/zero', PathInContainer: '/dev/zero', CgroupPermissions: 'rwm' }], deviceCgroupRules: ['c 10:200 rwm'] });
    assert.equal(devices.length, 1);
    assert.deepEqual(rules, [
      { allow: true, type: 'c', major: 1, minor: 5, access: 'rwm' },
      { allow: true, type: 'c', major: 10, minor: 200, access: 'rwm' },
    ]);
  });
});
