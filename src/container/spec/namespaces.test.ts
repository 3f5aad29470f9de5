import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HostConfig } from '../config/types.js';
import { containerNamespaces, type JoinableContainer } from './namespaces.js';

const running: JoinableContainer = { id: 'aaa', pid: 4242, running: true, shmPath: '/var/lib/berth/containers/aaa/mounts/shm' };
const stopped: JoinableContainer = { id: 'bbb', pid: 0, running: false };
const others: Record<string, JoinableContainer> = { aaa: running, web: running, bbb: stopped, self: { id: 'me', pid: 1, running: true } };
const find = (idOrName: string) => others[idOrName];
const base: HostConfig = { NetworkMode: 'default', IpcMode: 'private', PidMode: '', UTSMode: '', CgroupnsMode: 'host', ShmSize: 67108864 };
const ns = (hc: HostConfig) => containerNamespaces('me', { ...base, ...hc }, find, '/c/me/mounts/shm');

describe('namespaces', () => {
  it('gives a container its own namespaces but the cgroup one, and a /dev/shm of ShmSize', () => {
    assert.deepEqual(ns({}), { namespaces: { network: 'private', ipc: 'private', pid: 'private', uts: 'private', cgroup: 'host' }, shm: { sizeBytes: 67108864 } });
    for (const mode of ['none', 'bridge', 'default', 'mynet']) assert.equal(ns({ NetworkMode: mode }).namespaces.network, 'private');
  });

  it("shares the host's", () => {
    assert.deepEqual(ns({ NetworkMode: 'host', IpcMode: 'host', PidMode: 'host', UTSMode: 'host' }).namespaces, { network: 'host', ipc: 'host', pid: 'host', uts: 'host', cgroup: 'host' });
    assert.equal(ns({ CgroupnsMode: 'private' }).namespaces.cgroup, 'private');
  });

  it("joins a running container's", () => {
    const r = ns({ NetworkMode: 'container:web', IpcMode: 'container:aaa', PidMode: 'container:aaa' });
    assert.deepEqual(r.namespaces.network, { path: '/proc/4242/ns/net' });
    assert.deepEqual(r.namespaces.ipc, { path: '/proc/4242/ns/ipc' });
    assert.deepEqual(r.namespaces.pid, { path: '/proc/4242/ns/pid' });
    assert.deepEqual(r.shm, { hostPath: running.shmPath });
  });

  it("refuses a container that is not running, or missing, in dockerd's words", () => {
    assert.throws(() => ns({ NetworkMode: 'container:bbb' }), { kind: 'conflict', message: 'cannot join network of a non running container: bbb' });
    assert.throws(() => ns({ NetworkMode: 'container:nope' }), { kind: 'notFound', message: 'No such container: nope' });
    assert.throws(() => ns({ NetworkMode: 'container:self' }), { message: 'cannot join own network' });
    assert.throws(() => ns({ IpcMode: 'container:bbb' }), { kind: 'invalidParameter', message: "invalid IPC mode: container:bbb: can't join IPC of container bbb: Container bbb is not running" });
    assert.throws(() => ns({ IpcMode: 'container:self' }), /non-shareable IPC \(hint: use IpcMode:shareable for the donor container\)/);
    assert.throws(() => ns({ PidMode: 'container:bbb' }), { kind: 'conflict', message: 'Container bbb is not running' });
  });

  it('puts /dev/shm where IpcMode says', () => {
    assert.equal(ns({ IpcMode: 'none' }).shm, 'none');
    assert.deepEqual(ns({ IpcMode: 'shareable' }).shm, { hostPath: '/c/me/mounts/shm' });
    assert.deepEqual(ns({ IpcMode: '' }).shm, { hostPath: '/c/me/mounts/shm' });
    assert.throws(() => ns({ IpcMode: 'bogus' }), { kind: 'invalidParameter', message: 'invalid IPC mode: bogus' });
  });
});
