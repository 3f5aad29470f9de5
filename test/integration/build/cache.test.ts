// The classic builder's cache: a second identical build comes whole from it; what invalidates a
// step (a file's content or mode, not its mtime; a declared build arg's value, not an undeclared
// one; an ENV), and everything after it; --no-cache; --cache-from. As Docker Engine 20.10 does it
// (/work/notes/build-reference.md, 1.3 and 5).
import assert from 'node:assert/strict';
import { chmodSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tarOf } from '../../helpers/image-archives.js';
import { build, builtId, postBuild, records, startBuildDaemon, steps, writeContext, type BuildDaemon } from './build-daemon.js';

/** For each step of the CLI's output but FROM, in order: 'cache' (Using cache) or 'built'. */
function outcomes(stdout: string): string[] {
  const blocks = stdout.split(/^Step \d+\/\d+ : /m).slice(2);
  return blocks.map((b) => (b.includes(' ---> Using cache\n') ? 'cache' : 'built'));
}

describe('docker build: the cache', () => {
  let bd: BuildDaemon;
  before(async () => {
    bd = await startBuildDaemon();
  });
  after(async () => {
    await bd?.stop();
  });

  test('the same build again: every step from the cache, the same image, nothing run', async () => {
    const ctx = writeContext(bd, 'same', {
      'hello.txt': 'hello\n',
      Dockerfile: ['FROM busybox', 'RUN echo ran; date +%s%N > /stamp', 'ENV a=b', 'COPY hello.txt /hello.txt', 'WORKDIR /w', 'LABEL l=1', 'CMD ["cat", "/hello.txt"]', ''].join('\n'),
    });
    const first = await build(bd, ctx, ['-t', 'same:1']);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(outcomes(first.stdout), ['built', 'built', 'built', 'built', 'built', 'built']);
    const second = await build(bd, ctx, ['-t', 'same:2']);
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(outcomes(second.stdout), ['cache', 'cache', 'cache', 'cache', 'cache', 'cache']);
    assert.ok(!second.stdout.includes('ran\n') && !second.stdout.includes('Running in'), second.stdout);
    assert.equal(builtId(second.stdout), builtId(first.stdout));
    // each cached step: "Using cache", then the image it was the first time
    const firstIds = [...first.stdout.matchAll(/^ ---> ([0-9a-f]{12})$/gm)].map((m) => m[1]);
    const secondIds = [...second.stdout.matchAll(/^ ---> ([0-9a-f]{12})$/gm)].map((m) => m[1]);
    assert.deepEqual(secondIds, firstIds);
    assert.match(second.stdout, /^Step 2\/7 : RUN echo ran; date \+%s%N > \/stamp\n ---> Using cache\n ---> [0-9a-f]{12}\nStep 3\/7 : ENV a=b\n ---> Using cache\n/m);
    assert.match(second.stdout, /^Successfully tagged same:2$/m);
  });

  test('the raw stream of a cached step', async () => {
    const context = await tarOf([{ name: 'Dockerfile', content: 'FROM busybox\nRUN echo raw\n' }]);
    const first = await postBuild(bd, context, 't=raw:1');
    assert.equal(first.status, 200, first.body);
    const again = await postBuild(bd, context, 't=raw:1');
    const recs = records(again.body);
    const id = recs.find((r) => r.aux)!.aux!.ID;
    assert.deepEqual(recs, [
      { stream: 'Step 1/2 : FROM busybox' },
      { stream: '\n' },
      recs[2],
      { stream: 'Step 2/2 : RUN echo raw' },
      { stream: '\n' },
      { stream: ' ---> Using cache\n' },
      { stream: ` ---> ${id.slice(7, 19)}\n` },
      { aux: { ID: id } },
      { stream: `Successfully built ${id.slice(7, 19)}\n` },
      { stream: 'Successfully tagged raw:1\n' },
    ]);
    assert.match(recs[2].stream ?? '', /^ ---> [0-9a-f]{12}\n$/);
  });

  test("a file's new content or mode invalidates its COPY and every step after; its mtime alone does not", async () => {
    const ctx = writeContext(bd, 'file', {
      'f.txt': 'v1\n',
      Dockerfile: ['FROM busybox', 'RUN echo before > /before', 'COPY f.txt /f.txt', 'RUN cat /f.txt', 'LABEL after=1', ''].join('\n'),
    });
    const file = path.join(ctx, 'f.txt');
    const b1 = await build(bd, ctx, ['-t', 'file:1']);
    assert.equal(b1.code, 0, b1.stderr);
    utimesSync(file, new Date('2001-01-01T00:00:00Z'), new Date('2001-01-01T00:00:00Z'));
    const touched = await build(bd, ctx, ['-t', 'file:2']);
    assert.deepEqual(outcomes(touched.stdout), ['cache', 'cache', 'cache', 'cache']);
    assert.equal(builtId(touched.stdout), builtId(b1.stdout));
    writeFileSync(file, 'v2\n');
    const changed = await build(bd, ctx, ['-t', 'file:3']);
    assert.equal(changed.code, 0, changed.stderr);
    assert.deepEqual(outcomes(changed.stdout), ['cache', 'built', 'built', 'built']);
    assert.ok(changed.stdout.includes('\nv2\n'), changed.stdout);
    chmodSync(file, 0o600);
    const chmodded = await build(bd, ctx, ['-t', 'file:4']);
    assert.deepEqual(outcomes(chmodded.stdout), ['cache', 'built', 'built', 'built']);
    // back to v2 as it was: the cache has it
    chmodSync(file, 0o644);
    const back = await build(bd, ctx, ['-t', 'file:5']);
    assert.deepEqual(outcomes(back.stdout), ['cache', 'cache', 'cache', 'cache']);
    assert.equal(builtId(back.stdout), builtId(changed.stdout));
  });

  test("build args: a declared ARG's new value invalidates the RUNs after it, even ones that don't use it; an undeclared one changes nothing but warns", async () => {
    const ctx = writeContext(bd, 'args', {
      Dockerfile: ['FROM busybox', 'ARG used', 'ARG notused', 'RUN echo "used=$used"', 'ENV E=1', 'RUN echo after-env', ''].join('\n'),
    });
    const run = async (...args: string[]) => {
      const r = await build(bd, ctx, ['-t', 'args:1', ...args]);
      assert.equal(r.code, 0, r.stderr);
      return r.stdout;
    };
    assert.deepEqual(outcomes(await run('--build-arg', 'used=1')), ['built', 'built', 'built', 'built', 'built']);
    assert.deepEqual(outcomes(await run('--build-arg', 'used=1')), ['cache', 'cache', 'cache', 'cache', 'cache']);
    // the ARG steps themselves don't depend on the value
    assert.deepEqual(outcomes(await run('--build-arg', 'used=2')), ['cache', 'cache', 'built', 'built', 'built']);
    assert.deepEqual(outcomes(await run('--build-arg', 'used=2', '--build-arg', 'notused=9')), ['cache', 'cache', 'built', 'built', 'built']);
    const undeclared = await run('--build-arg', 'used=2', '--build-arg', 'notused=9', '--build-arg', 'other=1');
    assert.deepEqual(outcomes(undeclared), ['cache', 'cache', 'cache', 'cache', 'cache']);
    assert.match(undeclared, /^\[Warning\] One or more build-args \[other\] were not consumed$/m);
  });

  test('a changed ENV invalidates from its step on', async () => {
    const ctx = writeContext(bd, 'env', { Dockerfile: 'FROM busybox\nRUN echo one\nENV V=1\nRUN echo two\n' });
    assert.equal((await build(bd, ctx, ['-t', 'env:1'])).code, 0);
    writeFileSync(path.join(ctx, 'Dockerfile'), 'FROM busybox\nRUN echo one\nENV V=2\nRUN echo two\n');
    const r = await build(bd, ctx, ['-t', 'env:2']);
    assert.deepEqual(outcomes(r.stdout), ['cache', 'built', 'built']);
  });

  test('--no-cache runs every step again and makes new images', async () => {
    const ctx = writeContext(bd, 'nocache', { 'f.txt': 'f\n', Dockerfile: 'FROM busybox\nCOPY f.txt /\nRUN echo again\n' });
    const first = await build(bd, ctx, ['-t', 'nocache:1']);
    assert.equal(first.code, 0, first.stderr);
    const r = await build(bd, ctx, ['--no-cache', '-t', 'nocache:2']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(outcomes(r.stdout), ['built', 'built']);
    assert.ok(r.stdout.includes('again\n'));
    assert.notEqual(builtId(r.stdout), builtId(first.stdout));
  });

  test("--cache-from: only the given images' chains serve as cache", async () => {
    const ctx = writeContext(bd, 'cachefrom', { 'f.txt': 'f\n', Dockerfile: 'FROM busybox\nCOPY f.txt /f.txt\nRUN cat /f.txt\n' });
    const first = await build(bd, ctx, ['-t', 'cachefrom:1']);
    assert.equal(first.code, 0, first.stderr);
    // a full local cache, but busybox's chain has none of these steps
    const unrelated = await build(bd, ctx, ['--cache-from', 'busybox', '-t', 'cachefrom:2']);
    assert.equal(unrelated.code, 0, unrelated.stderr);
    assert.deepEqual(outcomes(unrelated.stdout), ['built', 'built']);
    const from = await build(bd, ctx, ['--cache-from', 'cachefrom:1', '-t', 'cachefrom:3']);
    assert.equal(from.code, 0, from.stderr);
    assert.deepEqual(outcomes(from.stdout), ['cache', 'cache']);
    assert.equal(builtId(from.stdout), builtId(first.stdout));
    // an image that does not exist is skipped
    const missing = await build(bd, ctx, ['--cache-from', 'nosuch:image', '-t', 'cachefrom:4']);
    assert.equal(missing.code, 0, missing.stderr);
    assert.deepEqual(outcomes(missing.stdout), ['built', 'built']);
    assert.equal(steps(missing.stdout).length, 3);
  });
});
