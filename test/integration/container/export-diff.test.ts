// docker export and docker diff through the CLI: the whole root filesystem without the mounts, for
// running and stopped containers, and the changes without what the runtime makes in every container.
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

  test('diff lists what the container changed as dockerd does (A, C, D), without the runtime mount targets', async () => {
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
