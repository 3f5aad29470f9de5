import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { ScopedRoot } from '../../container/archive/scoped-root.js';
import { tarOf, type LayerEntry } from '../../../test/helpers/image-archives.js';
import { openBuildContext, type BuildContext } from './build-context.js';
import type { Owner } from './chown-spec.js';
import { CopySource } from './copy-source.js';
import { CopySources } from './copy-sources.js';
import { scopedRootAt } from './scoped-root-at.js';

const MTIME = 1_600_000_000;

describe('CopySources.copyInto', { skip: process.getuid?.() !== 0 && 'needs root: copies set owners' }, () => {
  let base: string;
  let staging: string;
  let ctx: BuildContext;
  let rootfs: string;
  let root: ScopedRoot;

  before(async () => {
    base = mkdtempSync(path.join(os.tmpdir(), 'copy-into-'));
    staging = path.join(base, 'staging');
    mkdirSync(staging);
    const archive = await tarOf([
      { name: 'in/', type: 'directory', uid: 3, gid: 4 },
      { name: 'in/z', content: 'z\n', uid: 3, gid: 4 },
    ]);
    const entries: LayerEntry[] = [
      { name: 'Dockerfile', content: 'FROM scratch\n' },
      { name: 'a.txt', content: 'a\n', mode: 0o604 },
      { name: 'd/', type: 'directory', mode: 0o750 },
      { name: 'd/b.txt', content: 'b\n', uid: 9, gid: 9 },
      { name: 'd/e/', type: 'directory' },
      { name: 'd/h1', content: 'h\n' },
      { name: 'd/h2', type: 'link', linkname: 'd/h1' },
      { name: 'lnd', type: 'symlink', linkname: '/d' },
      { name: 'lnf', type: 'symlink', linkname: 'a.txt' },
      { name: 'p.tar', content: archive },
      { name: 'p.tgz', content: gzipSync(archive) },
      { name: 'p.tbz', content: compress('bzip2', archive) },
      { name: 'p.txz', content: compress('xz', archive) },
      { name: 'p.tzst', content: compress('zstd', archive) },
    ];
    ctx = await openBuildContext({ stagingDir: staging, body: Readable.from([await tarOf(entries.map((e) => ({ mtime: new Date(MTIME * 1000), ...e })))]) });
  });
  after(async () => {
    await ctx.close();
    rmSync(base, { recursive: true, force: true });
  });

  beforeEach(() => {
    rootfs = mkdtempSync(path.join(base, 'rootfs-'));
    mkdirSync(path.join(rootfs, 'etc'));
    writeFileSync(path.join(rootfs, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
    mkdirSync(path.join(rootfs, 'tmp'), { mode: 0o1777 });
    spawnSync('chmod', ['1777', path.join(rootfs, 'tmp')]);
    mkdirSync(path.join(rootfs, 'real'));
    symlinkSync('/real', path.join(rootfs, 'link'));
    symlinkSync('/etc', path.join(rootfs, 'abs-etc'));
    root = scopedRootAt(rootfs);
  });
  afterEach(() => root.close());

  async function copy(sources: string[], dest: string, opts: { owner?: Owner | 'preserve'; cmdName?: 'COPY' | 'ADD'; source?: CopySource } = {}): Promise<void> {
    const cmdName = opts.cmdName ?? 'COPY';
    const copies = await CopySources.resolve({ cmdName, sources, dest, source: opts.source ?? ctx.source, stagingDir: staging });
    try {
      await copies.copyInto({ root, dest, owner: opts.owner === 'preserve' ? undefined : (opts.owner ?? { uid: 0, gid: 0 }), decompress: cmdName === 'ADD' });
    } finally {
      await copies.close();
    }
  }
  const st = (p: string) => {
    const s = lstatSync(path.join(rootfs, p));
    return { mode: s.mode & 0o7777, uid: s.uid, gid: s.gid };
  };
  const read = (p: string) => readFileSync(path.join(rootfs, p), 'utf8');

  test('a file into a new directory: its mode and time kept, root owns it and the parents made (0755)', async () => {
    await copy(['a.txt'], '/nd/sub/');
    assert.deepEqual(st('nd/sub/a.txt'), { mode: 0o604, uid: 0, gid: 0 });
    assert.equal(statSync(path.join(rootfs, 'nd/sub/a.txt')).mtimeMs, MTIME * 1000);
    assert.deepEqual([st('nd'), st('nd/sub')], [{ mode: 0o755, uid: 0, gid: 0 }, { mode: 0o755, uid: 0, gid: 0 }]);
    await copy(['a.txt'], '/renamed');
    assert.equal(read('renamed'), 'a\n');
    await copy(['a.txt'], '/données/');
    assert.equal(read('données/a.txt'), 'a\n');
  });

  test('--chown owns the file and the parents made for it', async () => {
    await copy(['a.txt'], '/p/q/r/', { owner: { uid: 1, gid: 2 } });
    for (const p of ['p', 'p/q', 'p/q/r', 'p/q/r/a.txt']) assert.deepEqual([st(p).uid, st(p).gid], [1, 2], p);
  });

  test("a directory: its contents; a new destination gets --chown's owner, its parents stay root's", async () => {
    await copy(['d'], '/p2/q/', { owner: { uid: 1, gid: 2 } });
    assert.deepEqual(readdirSync(path.join(rootfs, 'p2/q')).sort(), ['b.txt', 'e', 'h1', 'h2']);
    assert.deepEqual([st('p2'), st('p2/q'), st('p2/q/b.txt')], [{ mode: 0o755, uid: 0, gid: 0 }, { mode: 0o755, uid: 1, gid: 2 }, { mode: 0o644, uid: 1, gid: 2 }]);
    // hard links stay links
    assert.equal(lstatSync(path.join(rootfs, 'p2/q/h1')).ino, lstatSync(path.join(rootfs, 'p2/q/h2')).ino);
  });

  test('into an existing directory, which keeps its own mode and owner', async () => {
    await copy(['d'], '/tmp', { owner: { uid: 1, gid: 2 } });
    assert.deepEqual(st('tmp'), { mode: 0o1777, uid: 0, gid: 0 });
    assert.equal(read('tmp/b.txt'), 'b\n');
    await copy(['a.txt'], '/tmp');
    assert.equal(read('tmp/a.txt'), 'a\n');
  });

  test('links in the context: a link to a file is copied as the file under its own name, to a directory as its contents', async () => {
    await copy(['lnf'], '/tmp/');
    assert.equal(lstatSync(path.join(rootfs, 'tmp/lnf')).isFile(), true);
    assert.equal(read('tmp/lnf'), 'a\n');
    await copy(['lnd'], '/ld');
    assert.deepEqual(readdirSync(path.join(rootfs, 'ld')).sort(), ['b.txt', 'e', 'h1', 'h2']);
    assert.equal(st('ld').mode, 0o755);
  });

  test('the destination resolves inside the root: through a link, an absolute one too', async () => {
    await copy(['a.txt'], '/link/');
    assert.equal(read('real/a.txt'), 'a\n');
    const name = `berth-copy-${process.pid}`;
    await copy(['a.txt'], `/abs-etc/${name}`);
    assert.equal(read(`etc/${name}`), 'a\n');
    assert.equal(existsSync(`/etc/${name}`), false);
  });

  test('ADD extracts a local tar (plain, gzip, bzip2, xz; not zstd), with the archive\'s owners even under --chown', async () => {
    for (const [src, dest] of [['p.tar', '/x1'], ['p.tgz', '/x2/'], ['p.tbz', '/x3'], ['p.txz', '/x4']]) {
      await copy([src], dest, { cmdName: 'ADD' });
      assert.equal(read(`${dest}/in/z`), 'z\n', src);
      assert.deepEqual([st(`${dest}/in/z`).uid, st(dest).uid, st(dest).mode], [3, 0, 0o755]);
    }
    await copy(['p.tzst'], '/x5', { cmdName: 'ADD' });
    assert.equal(lstatSync(path.join(rootfs, 'x5')).isFile(), true);
    await copy(['p.tar'], '/x6', { cmdName: 'ADD', owner: { uid: 7, gid: 7 } });
    assert.deepEqual([st('x6/in/z').uid, st('x6/in/z').gid], [3, 4]);
    await copy(['p.tar'], '/c');
    assert.equal(lstatSync(path.join(rootfs, 'c')).isFile(), true);
  });

  test('COPY --from without --chown keeps the owners; a new destination is root\'s', async () => {
    const image = mkdtempSync(path.join(base, 'image-'));
    mkdirSync(path.join(image, 'src'));
    writeFileSync(path.join(image, 'src/f'), 'f');
    chownSync(path.join(image, 'src/f'), 5, 6);
    symlinkSync('/etc', path.join(image, 'src/lnetc'));
    await copy(['/src'], '/y', { owner: 'preserve', source: new CopySource(image) });
    assert.deepEqual([st('y/f').uid, st('y/f').gid, st('y').uid], [5, 6, 0]);
    assert.equal(lstatSync(path.join(rootfs, 'y/lnetc')).isSymbolicLink(), true);
  });

  test("dockerd's errors when the destination is in the way", async () => {
    const fails = async (sources: string[], dest: string) =>
      ((await copy(sources, dest).then(
        () => assert.fail('it copied'),
        (e: unknown) => e,
      )) as Error).message;
    assert.equal(await fails(['d'], '/etc/passwd'), 'failed to copy files: failed to copy directory: mkdir /etc/passwd: not a directory');
    assert.equal(await fails(['a.txt'], '/etc/passwd/x'), 'failed to copy files: lstat /etc/passwd/x: not a directory');
    assert.equal(await fails(['a.txt'], '/etc/passwd/'), 'failed to copy files: failed to create new directory: mkdir /etc/passwd: not a directory');
  });

  describe('ADD <url>', () => {
    let server: Server;
    let url: string;
    before(async () => {
      server = createServer((req, res) => {
        if (req.url === '/files/df2') res.writeHead(200, { 'last-modified': 'Wed, 25 Nov 2026 23:17:02 GMT' });
        if (req.url === '/disposition/') res.writeHead(200, { 'content-disposition': 'attachment; filename="named.txt"' });
        if (req.url === '/missing') res.writeHead(404, 'Not Found');
        res.end(req.url === '/missing' ? 'nope' : 'FROM x\n');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    test('downloaded, mode 0600, its time Last-Modified, named by the URL, never extracted', async () => {
      const copies = await CopySources.resolve({ cmdName: 'ADD', sources: [`${url}/files/df2`], dest: '/u/', source: undefined, stagingDir: staging });
      // a download's key has no file: prefix; hashed as mode 0100600, root's, named df2, 7 bytes
      assert.equal(copies.cacheKey, '5985d9a8d03cb5672eac5e3c78b412299499b12a28e486085189b7b83ccce33b');
      await copies.copyInto({ root, dest: '/u/', owner: { uid: 3, gid: 4 }, decompress: true });
      await copies.close();
      assert.deepEqual(readdirSync(staging).filter((n) => n.startsWith('build-download-')), []);
      assert.deepEqual(st('u/df2'), { mode: 0o600, uid: 3, gid: 4 });
      assert.equal(statSync(path.join(rootfs, 'u/df2')).mtimeMs, Date.parse('Wed, 25 Nov 2026 23:17:02 GMT'));
      await copy([`${url}/`], '/unnamed', { cmdName: 'ADD' });
      assert.equal(statSync(path.join(rootfs, 'unnamed')).mtimeMs, 0);
      await copy([`${url}/disposition/`], '/dir/', { cmdName: 'ADD' });
      assert.equal(read('dir/named.txt'), 'FROM x\n');
    });

    test("dockerd's errors", async () => {
      const fails = async (source: string, dest: string) =>
        ((await copy([source], dest, { cmdName: 'ADD' }).then(
          () => assert.fail('it copied'),
          (e: unknown) => e,
        )) as Error).message;
      assert.equal(await fails(`${url}/`, '/u/'), `ADD failed: cannot determine filename for source ${url}/`);
      assert.equal(await fails(`${url}/missing`, '/u'), `ADD failed: failed to GET ${url}/missing with status 404 Not Found: nope`);
      assert.equal(await fails('http://127.0.0.1:1/x', '/u'), 'ADD failed: Get "http://127.0.0.1:1/x": dial tcp 127.0.0.1:1: connect: connection refused');
    });
  });
});

function compress(command: string, data: Buffer): Buffer {
  const r = spawnSync(command, ['-c'], { input: data });
  assert.equal(r.status, 0);
  return r.stdout;
}
