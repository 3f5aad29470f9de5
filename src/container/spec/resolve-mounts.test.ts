import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { ContainerConfig, HostConfig } from '../config/types.js';
import { collectMounts, parseMount } from '../config/validate-mounts.js';
import { pino } from 'pino';
import { EventBus } from '../../events/event-bus.js';
import { createVolumes } from '../../volume/create-volumes.js';
import { resolveMountPoints, type MountPoint } from './resolve-mounts.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'berth-mounts-'));
after(() => rmSync(root, { recursive: true, force: true }));
const { containers: volumes } = await createVolumes({ dataRoot: root, events: new EventBus(), log: pino({ level: 'silent' }), users: () => [], pluginsDir: path.join(root, 'plugins') });
const resolve = (hostConfig: HostConfig, config: ContainerConfig = {}, others: Record<string, MountPoint[]> = {}) =>
  resolveMountPoints({
    config,
    hostConfig,
    mounts: collectMounts(hostConfig, '', (hostConfig.Mounts ?? []).map(parseMount)),
    volumes,
    containers: (id) => (others[id] ? { mountPoints: others[id] } : undefined),
  });
const vol = (name: string) => path.join(root, 'volumes', name, '_data');

describe('resolveMountPoints', () => {
  it('shows Binds as inspect does: binds keep their mode, local volumes get z', async () => {
    const points = await resolve({ Binds: ['/etc:/x:ro', '/tmp/src:/y', 'nv1:/p', 'nv2:/q:ro,nocopy', '/tmp/src:/r:z,rshared'] });
    assert.deepEqual(points, [
      { Type: 'bind', Source: '/etc', Destination: '/x', Mode: 'ro', RW: false, Propagation: 'rprivate', createSource: true },
      { Type: 'bind', Source: '/tmp/src', Destination: '/y', Mode: '', RW: true, Propagation: 'rprivate', createSource: true },
      { Type: 'volume', Name: 'nv1', Source: vol('nv1'), Destination: '/p', Driver: 'local', Mode: 'z', RW: true, Propagation: '', copyData: true },
      { Type: 'volume', Name: 'nv2', Source: vol('nv2'), Destination: '/q', Driver: 'local', Mode: 'ro,nocopy', RW: false, Propagation: '', copyData: false },
      { Type: 'bind', Source: '/tmp/src', Destination: '/r', Mode: 'z,rshared', RW: true, Propagation: 'rshared', createSource: true },
    ]);
    assert.equal(statSync(vol('nv1')).mode & 0o777, 0o755);
  });

  it('shows Mounts as inspect does', async () => {
    const points = await resolve({
      Mounts: [
        { Type: 'bind', Source: '/etc', Target: '/w', ReadOnly: true },
        { Type: 'tmpfs', Target: '/t', TmpfsOptions: { SizeBytes: 1000000, Mode: 0o1770 } },
        { Type: 'volume', Target: '/v', VolumeOptions: { NoCopy: true } },
        { Type: 'volume', Source: 'named2', Target: '/v2' },
      ],
    });
    const anonymous = points[2].Name ?? '';
    assert.match(anonymous, /^[0-9a-f]{64}$/);
    assert.deepEqual(points, [
      { Type: 'bind', Source: '/etc', Destination: '/w', Mode: '', RW: false, Propagation: 'rprivate' },
      { Type: 'tmpfs', Source: '', Destination: '/t', Mode: '', RW: true, Propagation: '', tmpfsOptions: 'mode=1770,size=1000000' },
      { Type: 'volume', Name: anonymous, Source: vol(anonymous), Destination: '/v', Driver: 'local', Mode: 'z', RW: true, Propagation: '', copyData: false, anonymous: true },
      { Type: 'volume', Name: 'named2', Source: vol('named2'), Destination: '/v2', Driver: 'local', Mode: 'z', RW: true, Propagation: '', copyData: true },
    ]);
  });

  it('gives image volumes an anonymous volume each, unless something covers them', async () => {
    const points = await resolve({ Binds: ['/tmp:/data'], Tmpfs: { '/run': '' } }, { Volumes: { '/data': {}, '/run': {}, '/cache/': {} } });
    assert.equal(points.length, 2);
    assert.equal(points[1].Destination, '/cache');
    assert.equal(points[1].Mode, '');
    assert.equal(points[1].copyData, true);
    assert.equal(points[1].anonymous, true);
    assert.ok(existsSync(points[1].Source));
  });

  it('takes VolumesFrom, read-only when asked, overridden by Binds', async () => {
    const donor: MountPoint[] = [
      { Type: 'volume', Name: 'nv1', Source: vol('nv1'), Destination: '/p', Driver: 'local', Mode: 'z', RW: true, Propagation: '', copyData: true },
      { Type: 'bind', Source: '/etc', Destination: '/e', Mode: 'ro', RW: false, Propagation: 'rprivate', createSource: true },
    ];
    const ro = await resolve({ VolumesFrom: ['donor:ro'] }, {}, { donor });
    assert.deepEqual(ro.map((m) => [m.Destination, m.Mode, m.RW, m.copyData]), [['/p', '', false, false], ['/e', '', false, false]]);
    const rw = await resolve({ VolumesFrom: ['donor'], Binds: ['/tmp:/p'] }, {}, { donor });
    assert.deepEqual(rw.map((m) => [m.Destination, m.Type, m.RW]), [['/p', 'bind', true], ['/e', 'bind', false]]);
    await assert.rejects(resolve({ VolumesFrom: ['nope'] }), { kind: 'notFound', message: 'No such container: nope' });
  });
});
