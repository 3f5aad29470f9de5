// netns.ts for real: namespaces made as files in a folder of the test's own, entered with nsenter
// and joined by runc, listed, and removed, also while a process still runs in one. Links are made
// only inside those namespaces; every file, mount and container goes at the end, also on failure.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { createNetns, inNetns, isNetns, listNetns, prepareNetnsDir, removeNetns } from '../../../src/runtime/netns.js';
import { ociSpec } from '../../../src/runtime/oci-spec.js';
import { BUSYBOX_PATH } from '../../helpers/busybox-image.js';
import { mountsUnder } from '../../helpers/leftovers.js';
import { execIn, netnsTestDir, spawnIn } from '../../helpers/netns.js';
import { RuncFixture } from '../../helpers/runc-fixture.js';

const CGROUP_PARENT = `/berth-test-netns-${process.pid}`;

let dir: string;

before(async () => {
  dir = netnsTestDir('netns');
  await prepareNetnsDir(dir);
});

after(async () => {
  for (const { path: file } of await listNetns(dir)) await removeNetns(file);
});

/** The mountinfo lines of mounts exactly at `target`. */
function mountsAt(target: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8').split('\n').filter((l) => l.split(' ')[4] === target);
}

function linkNames(netns: string): string[] {
  return (JSON.parse(execIn(netns, 'ip', ['-j', 'link', 'show'])) as Array<{ ifname: string }>).map((l) => l.ifname);
}

describe('network namespaces as files', () => {
  it('makes their folder a shared mount point once, however often asked', async () => {
    await prepareNetnsDir(dir);
    const mounts = mountsAt(dir);
    assert.equal(mounts.length, 1, mounts.join('\n'));
    assert.match(mounts[0], / shared:\d+ /);
  });

  it('creates a namespace of its own at a path, with loopback up', async () => {
    const file = path.join(dir, 'create');
    await createNetns(file);
    assert.equal(await isNetns(file), true);
    // a new namespace, not the test's: its inode is the file's
    const inside = execIn(file, 'readlink', ['/proc/self/ns/net']).trim();
    assert.notEqual(inside, readlinkSync('/proc/self/ns/net'));
    assert.equal(inside, `net:[${statSync(file).ino}]`);
    const [lo] = JSON.parse(execIn(file, 'ip', ['-j', 'link', 'show', 'lo'])) as Array<{ flags: string[]; operstate: string }>;
    assert.ok(lo.flags.includes('UP'), JSON.stringify(lo));
    assert.deepEqual(linkNames(file), ['lo']);
    // inNetns is how berth's own commands get there
    const [cmd, args] = inNetns(file, 'readlink', ['/proc/self/ns/net']);
    assert.deepEqual([cmd, args], ['nsenter', [`--net=${file}`, '--', 'readlink', '/proc/self/ns/net']]);
  });

  it('refuses a path that exists, and leaves what is there as it was', async () => {
    const file = path.join(dir, 'taken');
    await createNetns(file);
    const before = statSync(file).ino;
    await assert.rejects(createNetns(file), /EEXIST/);
    assert.equal(await isNetns(file), true);
    assert.equal(statSync(file).ino, before);
  });

  it('lists the files in a folder, live or left behind, and an empty list for no folder', async () => {
    const listed = path.join(dir, 'listed');
    const stale = path.join(dir, 'stale');
    await createNetns(listed);
    writeFileSync(stale, '');
    const entries = await listNetns(dir);
    assert.deepEqual(entries.find((e) => e.path === listed), { path: listed, live: true });
    assert.deepEqual(entries.find((e) => e.path === stale), { path: stale, live: false });
    assert.deepEqual(await listNetns(path.join(dir, 'no-such-folder')), []);
    await removeNetns(stale);
    assert.equal((await listNetns(dir)).some((e) => e.path === stale), false);
  });

  it('removes one: unmounted and deleted, and removing it again is no error', async () => {
    const file = path.join(dir, 'removed');
    await createNetns(file);
    await removeNetns(file);
    assert.equal(await isNetns(file), false);
    assert.deepEqual(mountsUnder(file), []);
    assert.throws(() => statSync(file), /ENOENT/);
    await removeNetns(file);
  });

  it('removes one a process still runs in: the path goes, the namespace lives on with the process', async () => {
    const file = path.join(dir, 'busy');
    await createNetns(file);
    execIn(file, 'ip', ['link', 'add', 'berth-a', 'type', 'veth', 'peer', 'name', 'berth-b']);
    const sleeper = spawnIn(file, 'sleep', ['30']);
    await once(sleeper, 'spawn');
    // nsenter has exec'd sleep once the pid's namespace is the file's
    const ino = statSync(file).ino;
    for (let i = 0; readlinkSync(`/proc/${sleeper.pid}/ns/net`) !== `net:[${ino}]`; i++) {
      assert.ok(i < 100, 'sleep never entered the namespace');
      await new Promise((r) => setTimeout(r, 10));
    }
    await removeNetns(file);
    assert.throws(() => statSync(file), /ENOENT/);
    assert.deepEqual(linkNames(`/proc/${sleeper.pid}/ns/net`), ['lo', 'berth-b', 'berth-a']);
    sleeper.kill('SIGKILL');
    await once(sleeper, 'exit');
  });

  it('is joined by runc by path (linux.namespaces network path)', async () => {
    const file = path.join(dir, 'runc');
    await createNetns(file);
    execIn(file, 'ip', ['link', 'add', 'berth-a', 'type', 'veth', 'peer', 'name', 'berth-b']);
    const fixture = await RuncFixture.create('berth-netns-runc-', CGROUP_PARENT);
    try {
      const bundle = path.join(fixture.dir, 'bundle');
      mkdirSync(bundle);
      const spec = ociSpec({
        args: ['sh', '-c', 'readlink /proc/self/ns/net; ls /sys/class/net; cat /sys/class/net/lo/operstate'],
        env: [BUSYBOX_PATH],
        cwd: '/',
        user: { uid: 0, gid: 0 },
        hostname: 'netns',
        rootfsPath: fixture.rootfs,
        cgroupsPath: `${CGROUP_PARENT}/netns`,
        namespaces: { network: { path: file } },
      });
      writeFileSync(path.join(bundle, 'config.json'), JSON.stringify(spec));
      fixture.created.add('netns');
      const r = await fixture.runc.run('netns', bundle);
      assert.equal(r.exitCode, 0, r.stderr);
      const [nsLink, ...rest] = r.stdout.trim().split('\n');
      assert.equal(nsLink, `net:[${statSync(file).ino}]`);
      // its links, and loopback up (operstate "unknown" is an up loopback's; a down one says "down")
      assert.deepEqual(rest, ['berth-a', 'berth-b', 'lo', 'unknown']);
    } finally {
      await fixture.cleanUp();
    }
  });
});
