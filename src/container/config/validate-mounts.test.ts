import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HostConfig } from './types.js';
import { collectMounts, parseBind, parseMount, tmpfsMountOptions, validateTmpfsDestination } from './validate-mounts.js';

const bad = (message: string) => ({ kind: 'invalidParameter', message });
const sys = (message: string) => ({ kind: 'system', message });
const dataRoot = '/var/lib/berth';

describe('parseBind', () => {
  it('reads a host path bind with options', () => {
    assert.deepEqual(parseBind('/tmp/:/x/../y:ro,z,rslave'), {
      type: 'bind', source: '/tmp', name: '', driver: '', destination: '/y', rw: false, mode: 'ro,z,rslave', propagation: 'rslave', copyData: false, spec: null,
    });
  });
  it('gives a bind rprivate propagation and rw by default', () => {
    const b = parseBind('/tmp:/x');
    assert.deepEqual([b.rw, b.propagation, b.mode], [true, 'rprivate', '']);
  });
  it('reads a named volume, with nocopy and the volume driver', () => {
    const v = parseBind('vol:/x:nocopy,ro', 'local2');
    assert.deepEqual([v.type, v.name, v.driver, v.rw, v.copyData, v.propagation], ['volume', 'vol', 'local2', false, false, '']);
  });
  it('reads a lone path as an anonymous volume', () => {
    const v = parseBind('/data');
    assert.deepEqual([v.type, v.name, v.destination, v.copyData], ['volume', '', '/data', true]);
  });
  it('refuses malformed specs with a 500, as the reference', () => {
    assert.throws(() => parseBind('/tmp:/x:a:b'), sys("invalid volume specification: '/tmp:/x:a:b'"));
    assert.throws(() => parseBind(':/y'), sys("invalid volume specification: ':/y'"));
    assert.throws(() => parseBind('/tmp:'), sys("invalid volume specification: '/tmp:'"));
    assert.throws(() => parseBind('/x:rw'), sys("invalid volume specification: '/x:rw'"));
  });
  it('refuses unknown or repeated options', () => {
    for (const mode of ['bogus', 'ro,rw', 'z,Z', 'shared,slave', 'nocopy,nocopy']) {
      assert.throws(() => parseBind(`/tmp:/x:${mode}`), sys(`invalid mode: ${mode}`));
    }
  });
  it('refuses options of the other mount type, and bad paths, with the mount config message', () => {
    assert.throws(() => parseBind('/tmp:/x:nocopy'), sys(`invalid volume specification: '/tmp:/x:nocopy': invalid mount config for type "bind": field VolumeOptions must not be specified`));
    assert.throws(() => parseBind('vol:/x:shared'), sys(`invalid volume specification: 'vol:/x:shared': invalid mount config for type "volume": field BindOptions must not be specified`));
    assert.throws(() => parseBind('/tmp:rel'), sys(`invalid volume specification: '/tmp:rel': invalid mount config for type "bind": invalid mount path: 'rel' mount path must be absolute`));
    assert.throws(() => parseBind('/tmp:/'), sys(`invalid volume specification: '/tmp:/': invalid mount config for type "bind": invalid specification: destination can't be '/'`));
    assert.throws(() => parseBind('/tmp::ro'), sys(`invalid volume specification: '/tmp::ro': invalid mount config for type "bind": field Target must not be empty`));
  });
});

describe('parseMount', () => {
  const cases: Array<[object, string]> = [
    [{ Type: 'bind', Source: '/nonexistent-q', Target: '/x' }, 'invalid mount config for type "bind": bind source path does not exist: /nonexistent-q'],
    [{ Type: 'bind', Source: 'rel', Target: '/x' }, `invalid mount config for type "bind": invalid mount path: 'rel' mount path must be absolute`],
    [{ Type: 'bind', Source: '', Target: '/x' }, 'invalid mount config for type "bind": field Source must not be empty'],
    [{ Type: 'bind', Source: '/tmp', Target: '' }, 'invalid mount config for type "bind": field Target must not be empty'],
    [{ Type: 'bind', Source: '/tmp', Target: '/' }, `invalid mount config for type "bind": invalid specification: destination can't be '/'`],
    [{ Type: 'bind', Source: '/tmp', Target: 'rel' }, `invalid mount config for type "bind": invalid mount path: 'rel' mount path must be absolute`],
    [{ Type: 'bind', Source: '/tmp', Target: '/x', BindOptions: { Propagation: 'weird' } }, 'invalid mount config for type "bind": invalid propagation mode: weird'],
    [{ Type: 'bind', Source: '/tmp', Target: '/x', VolumeOptions: {} }, 'invalid mount config for type "bind": field VolumeOptions must not be specified'],
    [{ Type: 'volume', Source: 'v', Target: '/x', BindOptions: {} }, 'invalid mount config for type "volume": field BindOptions must not be specified'],
    [{ Type: 'volume', Target: '/x', ReadOnly: true }, 'invalid mount config for type "volume": must not set ReadOnly mode when using anonymous volumes'],
    [{ Type: 'tmpfs', Source: 'x', Target: '/x' }, 'invalid mount config for type "tmpfs": field Source must not be specified'],
    [{ Type: 'tmpfs', Target: '/x', BindOptions: {} }, 'invalid mount config for type "tmpfs": field BindOptions must not be specified'],
    [{ Type: 'npipe', Source: 'x', Target: '/x' }, 'invalid mount config for type "npipe": mount type unknown'],
    [{ Source: 'x', Target: '/x' }, 'invalid mount config for type "": mount type unknown'],
  ];
  for (const [m, message] of cases) it(message, () => assert.throws(() => parseMount(m), bad(message)));
  it('reads a bind with its propagation, cleaned', () => {
    const p = parseMount({ Type: 'bind', Source: '/tmp/', Target: '/x/', ReadOnly: true, BindOptions: { Propagation: 'shared' } });
    assert.deepEqual([p.source, p.destination, p.rw, p.propagation, p.mode], ['/tmp', '/x', false, 'shared', '']);
  });
  it('reads a volume with its driver and nocopy', () => {
    const p = parseMount({ Type: 'volume', Source: 'v1', Target: '/x', VolumeOptions: { NoCopy: true, DriverConfig: { Name: 'local' } } });
    assert.deepEqual([p.name, p.driver, p.copyData], ['v1', 'local', false]);
  });
});

describe('validateTmpfsDestination and tmpfsMountOptions', () => {
  it('refuses / and relative destinations', () => {
    assert.throws(() => validateTmpfsDestination('/'), bad("invalid specification: destination can't be '/'"));
    assert.throws(() => validateTmpfsDestination('rel'), bad("invalid mount path: 'rel' mount path must be absolute"));
  });
  it("writes dockerd's option string, with the largest unit that divides the size", () => {
    assert.equal(tmpfsMountOptions({ Type: 'tmpfs', ReadOnly: true, TmpfsOptions: { SizeBytes: 1048576, Mode: 0o1777 } }), 'ro,mode=1777,size=1m');
    assert.equal(tmpfsMountOptions({ Type: 'tmpfs', TmpfsOptions: { SizeBytes: 1000 } }), 'size=1000');
    assert.equal(tmpfsMountOptions({ Type: 'tmpfs' }), '');
  });
});

/** collectMounts as the normalizer calls it, with the Mounts parsed first. */
const collect = (hc: HostConfig) => collectMounts(hc, dataRoot, (hc.Mounts ?? []).map(parseMount));

describe('collectMounts', () => {
  it('returns Binds then Mounts', () => {
    const m = collect({ Binds: ['/tmp:/a'], Mounts: [{ Type: 'tmpfs', Target: '/b' }] });
    assert.deepEqual(m.map((x) => [x.type, x.destination]), [['bind', '/a'], ['tmpfs', '/b']]);
  });
  it('refuses two mounts on one destination, naming it', () => {
    assert.throws(() => collect({ Binds: ['/tmp:/x', '/var:/x/'] }), bad('Duplicate mount point: /x'));
    assert.throws(() => collect({ Binds: ['/tmp:/x'], Mounts: [{ Type: 'bind', Source: '/var', Target: '/x' }] }), bad('Duplicate mount point: /x'));
    assert.throws(() => collect({ Binds: ['/tmp:/x'], Tmpfs: { '/x': '' } }), bad('Duplicate mount point: /x'));
    assert.throws(() => collect({ Mounts: [{ Type: 'volume', Target: '/x' }, { Type: 'volume', Target: '/x/' }] }), bad('Duplicate mount point: /x/'));
  });
  it('allows a Mounts item and a Tmpfs entry on one destination, as the reference does', () => {
    collect({ Mounts: [{ Type: 'tmpfs', Target: '/t' }], Tmpfs: { '/t': '' } });
  });
  it('makes a bind over the data root rslave, and refuses a private one', () => {
    assert.equal(collect({ Binds: ['/var:/x'] })[0].propagation, 'rslave');
    assert.equal(collect({ Binds: ['/var:/x:rshared'] })[0].propagation, 'rshared');
    assert.equal(collect({ Binds: ['/tmp:/x'] })[0].propagation, 'rprivate');
    assert.throws(
      () => collect({ Mounts: [{ Type: 'bind', Source: '/var', Target: '/x', BindOptions: { Propagation: 'private' } }] }),
      bad(`invalid mount config: must use either propagation mode "rslave" or "rshared" when mount source is within the daemon root, daemon root: "${dataRoot}", bind mount source: "/var", propagation: "private"`),
    );
  });
});
