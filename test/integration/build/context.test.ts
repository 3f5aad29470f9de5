// The build context: .dockerignore through the CLI, a Dockerfile from outside the context or from
// stdin, a whole context on stdin (gzip) and compressed bodies on the raw API; and what a hostile
// context can do: entries that climb out of it (unpacked inside it, nothing written outside),
// links through which entries would escape (refused or kept inside), symlinks COPY'd (followed
// inside the context only). As Docker Engine 20.10 does it (/work/notes/build-reference.md, 3).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { tarOf } from '../../helpers/image-archives.js';
import { build, dataRoot, findNamed, postBuild, records, runImage, startBuildDaemon, writeContext, type BuildDaemon } from './build-daemon.js';

describe('docker build: the context', () => {
  let bd: BuildDaemon;
  before(async () => {
    bd = await startBuildDaemon();
  });
  after(async () => {
    await bd?.stop();
  });

  test('.dockerignore: what it excludes is not in the context (COPY of it fails), ! re-includes; the Dockerfile and .dockerignore it lists are still used, then dropped', async () => {
    const ctx = writeContext(bd, 'ignore', {
      'a.txt': 'a\n',
      'secret.txt': 'secret\n',
      'logs/x.log': 'log\n',
      'keep/k.log': 'kept\n',
      'keep/other.txt': 'other\n',
      '.dockerignore': 'secret.txt\n*.log\n**/*.log\n!keep/k.log\nDockerfile\n.dockerignore\n',
      Dockerfile: 'FROM busybox\nCOPY . /all/\n',
    });
    const r = await build(bd, ctx, ['-t', 'ignore:1']);
    assert.equal(r.code, 0, r.stderr);
    const tree = await runImage(bd, 'ignore:1', ['sh', '-c', 'find /all | sort']);
    assert.deepEqual(tree.trim().split('\n'), ['/all', '/all/a.txt', '/all/keep', '/all/keep/k.log', '/all/keep/other.txt', '/all/logs']);
    writeFileSync(path.join(ctx, 'Dockerfile'), 'FROM busybox\nCOPY secret.txt /s\n');
    const excluded = await build(bd, ctx, ['-t', 'ignore:2']);
    assert.equal(excluded.code, 1);
    assert.match(excluded.stderr, /^COPY failed: file not found in build context or excluded by \.dockerignore: stat secret\.txt: file does not exist$/m);

    // a .dockerignore that does not list itself is copied like any file
    const own = writeContext(bd, 'ignore-self', { 'a.txt': 'a\n', 'b.txt': 'b\n', '.dockerignore': 'b.txt\n', Dockerfile: 'FROM busybox\nCOPY . /all/\n' });
    assert.equal((await build(bd, own, ['-t', 'ignore:3'])).code, 0);
    assert.equal(await runImage(bd, 'ignore:3', ['sh', '-c', 'ls -A /all']), '.dockerignore\nDockerfile\na.txt\n');
  });

  test('-f with a Dockerfile outside the context, and -f- from stdin: built, and the Dockerfile is not in the context COPY sees', async () => {
    const ctx = writeContext(bd, 'outside/ctx', { 'c.txt': 'ctxfile\n' });
    const dockerfile = 'FROM busybox\nCOPY . /all/\nRUN cat /all/c.txt\n';
    const outside = path.join(bd.dir, 'outside', 'Dockerfile.out');
    writeFileSync(outside, dockerfile);
    const r = await build(bd, ctx, ['-f', outside, '-t', 'outside:1']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.includes('\nctxfile\n'), r.stdout);
    assert.equal(await runImage(bd, 'outside:1', ['ls', '-A', '/all']), 'c.txt\n');
    const stdin = await build(bd, ctx, ['-f-', '--no-cache', '-t', 'outside:2'], { input: dockerfile });
    assert.equal(stdin.code, 0, stdin.stderr);
    assert.equal(await runImage(bd, 'outside:2', ['ls', '-A', '/all']), 'c.txt\n');
  });

  test('a context on stdin: a gzip tar as is, a lone Dockerfile wrapped by the CLI', async () => {
    const context = gzipSync(await tarOf([
      { name: 'Dockerfile', content: 'FROM busybox\nCOPY g.txt /g.txt\nRUN cat /g.txt\n' },
      { name: 'g.txt', content: 'gzfile\n' },
    ]));
    const r = await build(bd, '-', ['-t', 'stdin:gz'], { input: context });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.includes('\ngzfile\n'), r.stdout);
    assert.equal(await runImage(bd, 'stdin:gz', ['cat', '/g.txt']), 'gzfile\n');
    const lone = await build(bd, '-', ['-t', 'stdin:df'], { input: 'FROM busybox\nRUN echo from-stdin-dockerfile > /said\n' });
    assert.equal(lone.code, 0, lone.stderr);
    assert.equal(await runImage(bd, 'stdin:df', ['cat', '/said']), 'from-stdin-dockerfile\n');
  });

  test('raw API: a context in gzip, bzip2 or xz', async () => {
    const tar = await tarOf([
      { name: 'Dockerfile', content: 'FROM busybox\nCOPY z.txt /z.txt\n' },
      { name: 'z.txt', content: 'compressed\n' },
    ]);
    const bodies: Record<string, Buffer> = {
      gzip: gzipSync(tar),
      bzip2: execFileSync('bzip2', ['-c'], { input: tar }),
      xz: execFileSync('xz', ['-c'], { input: tar }),
    };
    const ids = new Set<string>();
    for (const [kind, body] of Object.entries(bodies)) {
      const res = await postBuild(bd, body, `t=compressed:${kind}`);
      assert.equal(res.status, 200, `${kind}: ${res.body}`);
      const recs = records(res.body);
      assert.equal(recs.find((x) => x.error !== undefined), undefined, `${kind}: ${res.body}`);
      ids.add(recs.find((x) => x.aux)!.aux!.ID);
    }
    // the same context, whatever its wrapping: the same image
    assert.equal(ids.size, 1);
    assert.equal(await runImage(bd, 'compressed:xz', ['cat', '/z.txt']), 'compressed\n');
  });

  test('raw API: entries that climb out of the context (../, deep ../, absolute, through a symlink) are unpacked inside it; nothing is written outside', async () => {
    const m = `berth-evil-${process.pid}-${Date.now()}`;
    const context = await tarOf([
      { name: 'Dockerfile', content: 'FROM busybox\nCOPY . /ctx/\n' },
      { name: `../${m}-up`, content: 'evil\n' },
      { name: `a/../../${m}-up2`, content: 'evil\n' },
      { name: `../../../../../../../../../../tmp/${m}-deep`, content: 'evil\n' },
      { name: `/tmp/${m}-abs`, content: 'evil\n' },
      { name: 'tmp/', type: 'directory' },
      { name: 'esc', type: 'symlink', linkname: '/tmp' },
      { name: `esc/${m}-via-link`, content: 'evil\n' },
      { name: 'up', type: 'symlink', linkname: '../../../../../../../../tmp' },
      { name: `up/${m}-via-uplink`, content: 'evil\n' },
    ]);
    const res = await postBuild(bd, context, 't=climb:1');
    assert.equal(res.status, 200, res.body);
    assert.equal(records(res.body).find((x) => x.error !== undefined), undefined, res.body);
    const tree = await runImage(bd, 'climb:1', ['sh', '-c', 'cd /ctx && find . | sort']);
    assert.deepEqual(tree.trim().split('\n'), ['.', './Dockerfile', `./${m}-up`, `./${m}-up2`, './esc', './tmp', `./tmp/${m}-abs`, `./tmp/${m}-deep`, `./tmp/${m}-via-link`, `./tmp/${m}-via-uplink`, './up']);
    assert.equal(await runImage(bd, 'climb:1', ['sh', '-c', 'readlink /ctx/esc; readlink /ctx/up']), '/tmp\n../../../../../../../../tmp\n');
    await assertNothingOutside(bd, m);
  });

  test('raw API: a context whose entry would be written through a link to a missing directory, or a hard link to a file outside, is refused before the build', async () => {
    const m = `berth-evil-${process.pid}-${Date.now()}`;
    const passwd = readFileSync('/etc/passwd', 'utf8');
    const cases = [
      [
        { name: 'Dockerfile', content: 'FROM busybox\nCOPY . /ctx/\n' },
        { name: 'esc', type: 'symlink' as const, linkname: `/${m}-nowhere` },
        { name: `esc/${m}-through`, content: 'evil\n' },
      ],
      [
        { name: 'Dockerfile', content: 'FROM busybox\nCOPY . /ctx/\n' },
        { name: 'hl', type: 'link' as const, linkname: '/etc/passwd' },
      ],
      [
        { name: 'Dockerfile', content: 'FROM busybox\nCOPY . /ctx/\n' },
        { name: 'hl2', type: 'link' as const, linkname: '../../../../../../../../etc/passwd' },
      ],
    ];
    for (const entries of cases) {
      const res = await postBuild(bd, await tarOf(entries), 't=refused:1');
      assert.equal(res.status, 500, res.body);
      assert.match((res.json() as { message: string }).message, /^Error processing tar file/);
    }
    assert.equal((await bd.request('GET', '/images/refused:1/json')).status, 404);
    assert.equal(readFileSync('/etc/passwd', 'utf8'), passwd);
    await assertNothingOutside(bd, m);
  });

  test('COPY of a symlink follows it inside the context only; links inside a copied directory stay links', async () => {
    const secret = path.join(bd.dir, 'links', 'outside-secret.txt');
    const ctx = writeContext(bd, 'links/ctx', {
      'in.txt': 'inside\n',
      'ok-link': { symlink: 'in.txt' },
      'etc/hostname': 'ctx-hostname\n',
      // resolved against the context's root: the context's etc/hostname
      'abs-in': { symlink: '/etc/hostname' },
      'rel-in': { symlink: '../../../../../../../../etc/hostname' },
      'abs-out': { symlink: secret },
      'rel-out': { symlink: '../outside-secret.txt' },
      'd/etc-link': { symlink: '/etc' },
      'd/out-link': { symlink: secret },
      Dockerfile: 'FROM busybox\nCOPY ok-link /c/ok-link\nCOPY abs-in /c/abs-in\nCOPY rel-in /c/rel-in\nCOPY d /c/d/\n',
    });
    writeFileSync(secret, 'host-secret\n');
    const r = await build(bd, ctx, ['-t', 'links:1']);
    assert.equal(r.code, 0, r.stderr);
    // a link named as a source: its target's content, as a file
    assert.equal(await runImage(bd, 'links:1', ['sh', '-c', 'for f in /c/ok-link /c/abs-in /c/rel-in; do test -L $f && echo link; cat $f; done']), 'inside\nctx-hostname\nctx-hostname\n');
    // links in a copied directory: copied as they are, pointing into the image
    assert.equal(await runImage(bd, 'links:1', ['sh', '-c', 'readlink /c/d/etc-link; readlink /c/d/out-link']), `/etc\n${secret}\n`);
    const leak = await bd.docker(['run', '--rm', 'links:1', 'cat', '/c/d/out-link']);
    assert.notEqual(leak.code, 0);
    assert.ok(!leak.stdout.includes('host-secret'));

    for (const name of ['abs-out', 'rel-out']) {
      writeFileSync(path.join(ctx, 'Dockerfile'), `FROM busybox\nCOPY ${name} /x\n`);
      const out = await build(bd, ctx, ['-t', `links:${name}`]);
      assert.equal(out.code, 1, out.stdout);
      assert.match(out.stderr, new RegExp(`^COPY failed: file not found in build context or excluded by \\.dockerignore: stat ${name}: file does not exist$`, 'm'));
      assert.ok(!out.stdout.includes('host-secret') && !out.stderr.includes('host-secret'));
    }
  });
});

/**
 * Nothing named `<marker>-…` outside the images: not in the host's /tmp (or the test's temporary
 * folder), and under the daemon's data root only inside a layer's copy of the context (`ctx/`).
 */
async function assertNothingOutside(bd: BuildDaemon, marker: string): Promise<void> {
  for (const dir of new Set(['/tmp', os.tmpdir(), path.dirname(bd.dir)])) {
    // (find's status is no matter: a folder that goes away under it is not what this looks for)
    const hits = spawnSync('find', [dir, '-maxdepth', '2', '-name', `${marker}*`], { encoding: 'utf8' }).stdout.trim();
    assert.equal(hits, '', `written outside the context: ${hits}`);
  }
  const root = await dataRoot(bd);
  const suffixes = ['-up', '-up2', '-deep', '-abs', '-via-link', '-via-uplink', '-through', '-nowhere'];
  for (const suffix of suffixes) {
    for (const hit of findNamed(root, `${marker}${suffix}`)) {
      assert.ok(hit.includes('/ctx/'), `${hit}: outside any copy of the context`);
    }
  }
  assert.ok(!existsSync(`/${marker}-nowhere`));
}
