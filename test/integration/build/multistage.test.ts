// Multi-stage builds with the classic builder: COPY --from a stage (by index and by name) and from
// an image, into scratch; --target; a stage used as the base of the next; ARG before FROM and the
// scope of ARGs across stages. As Docker Engine 20.10 does it (/work/notes/build-reference.md,
// 1.2, 6 and 8).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BUSYBOX_PATH } from '../../helpers/busybox-image.js';
import { tarOf } from '../../helpers/image-archives.js';
import { build, builtId, inspectImage, postBuild, records, runImage, startBuildDaemon, steps, writeContext, type BuildDaemon } from './build-daemon.js';

const STAGES = [
  'FROM busybox AS builder',
  'RUN mkdir -p /out/sub && echo built > /out/a.txt && echo deep > /out/sub/b.txt',
  'FROM busybox AS second',
  'RUN echo second > /second.txt',
  'FROM scratch',
  'COPY --from=0 /out/a.txt /a.txt',
  'COPY --from=builder /out /out',
  'COPY --from=second /second.txt /',
  'COPY --from=busybox /bin/busybox /bin/busybox',
  'CMD ["/bin/busybox", "cat", "/a.txt"]',
  '',
].join('\n');

describe('docker build: multi-stage', () => {
  let bd: BuildDaemon;
  before(async () => {
    bd = await startBuildDaemon();
  });
  after(async () => {
    await bd?.stop();
  });

  test('COPY --from a stage by index and by name, and from an image, into scratch; an aux record ends each stage', async () => {
    const res = await postBuild(bd, await tarOf([{ name: 'Dockerfile', content: STAGES }]), 't=stages:1&rm=1');
    assert.equal(res.status, 200, res.body);
    const recs = records(res.body);
    assert.equal(recs.find((r) => r.error !== undefined), undefined, res.body);
    const text = recs.map((r) => r.stream ?? (r.aux ? `<aux ${r.aux.ID}>\n` : '')).join('');
    assert.equal(steps(text).length, 10);
    // FROM scratch has no ID to show
    assert.match(text, /^Step 5\/10 : FROM scratch\n ---> \nStep 6\/10 : COPY --from=0 \/out\/a.txt \/a.txt\n ---> [0-9a-f]{12}\n/m);
    const auxes = recs.filter((r) => r.aux !== undefined).map((r) => r.aux!.ID);
    assert.equal(auxes.length, 3, res.body);
    assert.match(text, new RegExp(`^ ---> ${auxes[0].slice(7, 19)}\\n<aux ${auxes[0]}>\\nStep 3/10 : FROM busybox AS second\\n`, 'm'));
    assert.match(text, new RegExp(`^ ---> ${auxes[1].slice(7, 19)}\\n<aux ${auxes[1]}>\\nStep 5/10 : FROM scratch\\n`, 'm'));
    assert.match(text, new RegExp(`<aux ${auxes[2]}>\\nSuccessfully built ${auxes[2].slice(7, 19)}\\nSuccessfully tagged stages:1\\n$`));

    const img = await inspectImage(bd, 'stages:1');
    assert.equal(img.Id, auxes[2]);
    // four COPYs on nothing: four layers; the default PATH, as on any image without one
    assert.equal(img.RootFS.Layers.length, 4);
    assert.deepEqual(img.Config.Env, [BUSYBOX_PATH]);
    assert.deepEqual(img.Config.Cmd, ['/bin/busybox', 'cat', '/a.txt']);
    // the first COPY's image has no parent
    const first = await imageChainRoot(bd, 'stages:1');
    assert.match(first.ContainerConfig.Cmd?.join(' ') ?? '', /^\/bin\/sh -c #\(nop\) COPY file:[0-9a-f]{64} in \/a.txt $/);
    assert.equal(await runImage(bd, 'stages:1'), 'built\n');
    const tree = await runImage(bd, 'stages:1', ['/bin/busybox', 'find', '/a.txt', '/bin', '/out', '/second.txt']);
    assert.deepEqual(tree.trim().split('\n').sort(), ['/a.txt', '/bin', '/bin/busybox', '/out', '/out/a.txt', '/out/sub', '/out/sub/b.txt', '/second.txt']);
    assert.equal(await runImage(bd, 'stages:1', ['/bin/busybox', 'cat', '/out/sub/b.txt', '/second.txt']), 'deep\nsecond\n');
  });

  test('--target builds the stages up to it, and tags that one', async () => {
    const ctx = writeContext(bd, 'target', { Dockerfile: STAGES });
    const r = await build(bd, ctx, ['--target', 'second', '-t', 'stages:second']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(steps(r.stdout), [
      'Step 1/4 : FROM busybox AS builder',
      'Step 2/4 : RUN mkdir -p /out/sub && echo built > /out/a.txt && echo deep > /out/sub/b.txt',
      'Step 3/4 : FROM busybox AS second',
      'Step 4/4 : RUN echo second > /second.txt',
    ]);
    const img = await inspectImage(bd, 'stages:second');
    assert.equal(img.Id.slice(7, 19), builtId(r.stdout));
    assert.equal(await runImage(bd, 'stages:second', ['cat', '/second.txt']), 'second\n');
    // the stage's own image: busybox's config, no /a.txt
    assert.deepEqual(img.Config.Cmd, ['sh']);
    assert.equal((await bd.docker(['run', '--rm', 'stages:second', 'test', '-e', '/out/a.txt'])).code, 1);
  });

  test('a stage is the base of a later one by its name', async () => {
    const ctx = writeContext(bd, 'base', { Dockerfile: 'FROM busybox AS base\nRUN echo base > /base\nFROM base AS derived\nRUN cat /base\n' });
    const r = await build(bd, ctx, ['-t', 'derived:1']);
    assert.equal(r.code, 0, r.stderr);
    const base = /^Step 2\/4 : RUN echo base > \/base\n ---> Running in [0-9a-f]{12}\nRemoving intermediate container [0-9a-f]{12}\n ---> ([0-9a-f]{12})\nStep 3\/4 : FROM base AS derived\n ---> ([0-9a-f]{12})\n/m.exec(r.stdout);
    assert.ok(base, r.stdout);
    assert.equal(base[1], base[2]);
    assert.ok(r.stdout.includes(' ---> Running in ') && r.stdout.includes('\nbase\n'), r.stdout);
    assert.equal((await inspectImage(bd, 'derived:1')).Parent.slice(7, 19), base[1]);
  });

  test('ARG before FROM picks the base; a stage sees a global ARG only once it declares it; a stage\'s ARG is unknown to the next', async () => {
    const ctx = writeContext(bd, 'args', {
      Dockerfile: [
        'ARG BASE=busybox',
        'ARG V=global',
        'FROM ${BASE} AS first',
        'RUN echo "first: V=[$V]"',
        'ARG V',
        'RUN echo "first after ARG V: V=[$V]"',
        'ARG S=stage-default',
        'RUN echo "S=[$S]"',
        'FROM $BASE',
        'RUN echo "second: V=[$V] S=[$S]"',
        'ARG S',
        'RUN echo "second: S=[$S]"',
        '',
      ].join('\n'),
    });
    let r = await build(bd, ctx, ['-t', 'args:1']);
    assert.equal(r.code, 0, r.stderr);
    // the ARGs before FROM are steps with nothing under them
    assert.match(r.stdout, /^Step 1\/12 : ARG BASE=busybox\nStep 2\/12 : ARG V=global\nStep 3\/12 : FROM \$\{BASE\} AS first\n ---> [0-9a-f]{12}\n/m);
    const said = (out: string) => out.split('\n').filter((l) => /=\[/.test(l) && !l.startsWith('Step '));
    assert.deepEqual(said(r.stdout), ['first: V=[]', 'first after ARG V: V=[global]', 'S=[stage-default]', 'second: V=[] S=[]', 'second: S=[]']);
    r = await build(bd, ctx, ['-t', 'args:2', '--build-arg', 'V=cli', '--build-arg', 'S=s-cli']);
    assert.equal(r.code, 0, r.stderr);
    // the steps whose args did not change come from the cache: they print nothing
    assert.deepEqual(said(r.stdout), ['first after ARG V: V=[cli]', 'S=[s-cli]', 'second: S=[s-cli]']);
    assert.ok(!r.stdout.includes('[Warning]'), r.stdout);
  });

  test('FROM scratch alone makes no image', async () => {
    const res = await postBuild(bd, await tarOf([{ name: 'Dockerfile', content: 'FROM scratch\n' }]), 't=nothing:1');
    assert.equal(res.status, 200);
    assert.deepEqual(records(res.body), [
      { stream: 'Step 1/1 : FROM scratch' },
      { stream: '\n' },
      { stream: ' ---> \n' },
      { errorDetail: { message: 'No image was generated. Is your Dockerfile empty?' }, error: 'No image was generated. Is your Dockerfile empty?' },
    ]);
    assert.equal((await bd.request('GET', '/images/nothing:1/json')).status, 404);
  });
});

/** The first image of an image's parent chain. */
async function imageChainRoot(bd: BuildDaemon, ref: string) {
  let img = await inspectImage(bd, ref);
  while (img.Parent !== '') img = await inspectImage(bd, img.Parent);
  return img;
}
