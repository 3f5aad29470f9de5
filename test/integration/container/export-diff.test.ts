// docker export and docker diff through the CLI: the whole root filesystem without the mounts, for
// running and stopped containers, its init layer included; and the changes of the container's own
// layer, as dockerd 20.10 lists them for the same runs.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Berthd } from '../../helpers/berthd.js';
import { tempDir } from '../../helpers/berthd.js';
import { startWithBusybox, teardown } from '../../helpers/containers.js';

describe('container export and diff', () => {
  let d: Berthd;
  let work: string;
  before(async () => {
    d = await startWithBusybox();
    work = tempDir('berth-export-');
  });
  after(async () => {
    await teardown(d);
  });

  /** `docker export` to a file, listed by tar. */
  const exported = async (ref: string): Promise<string[]> => {
    const file = path.join(work, `${ref}.tar`);
    const r = await d.docker(['export', '-o', file, ref]);
    assert.equal(r.code, 0, r.stderr);
    return execFileSync('tar', ['tf', file], { encoding: 'utf8' }).trim().split('\n');
  };

  test('diff lists what the container changed as dockerd does (A, C, D)', async () => {
    const r = await d.docker(['run', '--name', 'df1', 'busybox', 'sh', '-c', 'touch /x; mkdir -p /tmp/y; rm /bin/ls']);
    assert.equal(r.code, 0, r.stderr);
    const diff = await d.docker(['diff', 'df1']);
    assert.equal(diff.code, 0, diff.stderr);
    assert.deepEqual(diff.stdout.trim().split('\n').sort(), ['A /tmp/y', 'A /x', 'C /bin', 'C /tmp', 'D /bin/ls'].sort());
    const fresh = await d.request('GET', `/containers/${(await d.docker(['create', 'busybox', 'true'])).stdout.trim()}/changes`);
    assert.equal(fresh.status, 200);
    assert.equal(fresh.body.trim(), 'null');
    assert.equal((await d.request('GET', '/containers/nosuch/changes')).status, 404);
  });

  test("diff gives dockerd 20.10's lists for the same runs: the init layer's files show only when the container changes them", async () => {
    // each run's `docker diff` on the reference engine (sorted: dockerd's order follows a Go map)
    const runs: Array<[string[], string[]]> = [
      [['true'], []],
      [['sh', '-c', 'touch /tmp/x'], ['A /tmp/x', 'C /tmp']],
      [['sh', '-c', 'echo 1.2.3.4 x >> /etc/hosts'], []],
      [['rm', '/etc/group'], ['C /etc', 'D /etc/group']],
      [['sh', '-c', 'rm /.dockerenv /etc/mtab; echo 1 > /etc/resolv.conf'], ['C /etc', 'D /.dockerenv', 'D /etc/mtab']],
      [['ln', '-sf', '/proc/self/mounts', '/etc/mtab'], ['C /etc', 'C /etc/mtab']],
      [['sh', '-c', 'echo x > /etc/newf'], ['A /etc/newf', 'C /etc']],
    ];
    for (const [command, expected] of runs) {
      const r = await d.docker(['run', '-d', 'busybox', ...command]);
      assert.equal(r.code, 0, r.stderr);
      const id = r.stdout.trim();
      assert.equal((await d.docker(['wait', id])).stdout.trim(), '0', command.join(' '));
      const diff = await d.docker(['diff', id]);
      assert.equal(diff.code, 0, diff.stderr);
      assert.deepEqual(diff.stdout.split('\n').filter(Boolean).sort(), expected, command.join(' '));
    }
    for (const [flags, expected] of [
      [['-t'], []],
      [['--init'], ['A /sbin', 'A /sbin/docker-init']],
      [['-w', '/wd'], ['A /wd']],
      [['--tmpfs', '/tt'], ['A /tt']],
    ]) {
      const r = await d.docker(['run', ...flags, '-d', 'busybox', 'true']);
      assert.equal(r.code, 0, r.stderr);
      await d.docker(['wait', r.stdout.trim()]);
      assert.deepEqual((await d.docker(['diff', r.stdout.trim()])).stdout.split('\n').filter(Boolean).sort(), expected, flags.join(' '));
    }
  });

  test("export has the init layer's entries as dockerd's does; inspect lists the init layer first in LowerDir", async () => {
    const c = (await d.docker(['create', '--name', 'ex0', 'busybox', 'true'])).stdout.trim();
    const file = path.join(work, 'ex0.tar');
    assert.equal((await d.docker(['export', '-o', file, c])).code, 0);
    // dockerd 20.10's export of a busybox container, outside bin/: the init layer's entries, mode 0755, root's
    const listing = execFileSync('tar', ['tvf', file, '--numeric-owner'], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/))
      .map((f) => `${f[0]} ${f[1]} ${f.slice(5).join(' ')}`);
    const initEntries = [
      '-rwxr-xr-x 0/0 .dockerenv',
      'drwxr-xr-x 0/0 dev/',
      '-rwxr-xr-x 0/0 dev/console',
      'drwxr-xr-x 0/0 dev/pts/',
      'drwxr-xr-x 0/0 dev/shm/',
      'drwxr-xr-x 0/0 etc/',
      '-rwxr-xr-x 0/0 etc/hostname',
      '-rwxr-xr-x 0/0 etc/hosts',
      'lrwxrwxrwx 0/0 etc/mtab -> /proc/mounts',
      '-rwxr-xr-x 0/0 etc/resolv.conf',
      'drwxr-xr-x 0/0 proc/',
      'drwxr-xr-x 0/0 sys/',
    ];
    for (const entry of initEntries) assert.ok(listing.includes(entry), `${entry} in\n${listing.join('\n')}`);
    const lower = (JSON.parse((await d.docker(['inspect', c])).stdout) as Array<{ GraphDriver: { Data: { LowerDir: string } } }>)[0].GraphDriver.Data.LowerDir;
    assert.match(lower, new RegExp(`/${c}/init:`));
  });

  test('export of a running and of a stopped container: the merged files, mounts left out', async () => {
    const bind = path.join(work, 'bind');
    mkdirSync(bind);
    writeFileSync(path.join(bind, 'host-file'), 'h');
    const r = await d.docker(['create', '--name', 'ex1', '-v', `${bind}:/b`, '--tmpfs', '/t', 'busybox', 'sleep', '1000']);
    assert.equal(r.code, 0, r.stderr);
    writeFileSync(path.join(work, 'added'), 'a');
    assert.equal((await d.docker(['cp', path.join(work, 'added'), 'ex1:/added'])).code, 0);
    assert.equal((await d.docker(['start', 'ex1'])).code, 0);
    const names = await exported('ex1');
    assert.ok(names.includes('bin/busybox'));
    assert.ok(names.includes('added'));
    assert.ok(names.includes('b/'));
    assert.ok(!names.includes('b/host-file'));
    assert.ok(!names.some((n) => (n.startsWith('t/') || n.startsWith('proc/')) && n !== 't/' && n !== 'proc/'));
    assert.ok(!names.some((n) => n.startsWith('/') || n.startsWith('./')));
    assert.equal((await d.docker(['stop', '-t', '0', 'ex1'])).code, 0);
    const stopped = await exported('ex1');
    assert.ok(stopped.includes('added'));
    assert.ok(!stopped.includes('b/host-file'));
    assert.equal((await d.request('GET', '/containers/nosuch/export')).status, 404);
  });
});
