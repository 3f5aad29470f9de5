import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { tarOf, type LayerEntry } from '../../../test/helpers/image-archives.js';
import { openBuildContext, type BuildContext, type BuildContextOptions } from './build-context.js';

let base: string;
let staging: string;
before(() => {
  base = mkdtempSync(path.join(os.tmpdir(), 'build-context-'));
  staging = path.join(base, 'staging');
  mkdirSync(staging);
});
after(() => rmSync(base, { recursive: true, force: true }));

const DOCKERFILE: LayerEntry = { name: 'Dockerfile', content: 'FROM busybox\n' };

async function open(entries: LayerEntry[] | Buffer, opts: Partial<BuildContextOptions> = {}): Promise<BuildContext> {
  const body = Buffer.isBuffer(entries) ? entries : await tarOf(entries);
  return openBuildContext({ stagingDir: staging, body: Readable.from([body]), ...opts });
}

async function failure(entries: LayerEntry[] | Buffer, opts: Partial<BuildContextOptions> = {}): Promise<{ kind: string; message: string }> {
  const err = (await open(entries, opts).then(
    () => assert.fail('the context opened'),
    (e: unknown) => e,
  )) as { kind: string; message: string };
  // a failed context leaves nothing behind
  assert.deepEqual(readdirSync(staging), []);
  return { kind: err.kind, message: err.message };
}

function compress(command: string, data: Buffer): Buffer {
  const r = spawnSync(command, ['-c'], { input: data });
  assert.equal(r.status, 0);
  return r.stdout;
}

describe('openBuildContext from the request body', () => {
  test('a tar, plain or compressed with gzip, bzip2 or xz, is extracted and its Dockerfile read; close removes it', async () => {
    const tar = await tarOf([DOCKERFILE, { name: 'd', type: 'directory' }, { name: 'd/f', content: 'f\n', mode: 0o600, uid: 7, gid: 8 }]);
    for (const body of [tar, gzipSync(tar), compress('bzip2', tar), compress('xz', tar)]) {
      const ctx = await open(body);
      assert.equal(ctx.dockerfileName, 'Dockerfile');
      assert.equal(ctx.dockerfileText, 'FROM busybox\n');
      assert.deepEqual(ctx.ignorePatterns, []);
      const dir = ctx.dir as string;
      assert.deepEqual(readdirSync(dir).sort(), ['Dockerfile', 'd']);
      const f = lstatSync(path.join(dir, 'd/f'));
      assert.deepEqual([f.mode & 0o7777, f.uid, f.gid], [0o600, 7, 8]);
      await ctx.close();
      assert.equal(existsSync(dir), false);
    }
    assert.deepEqual(readdirSync(staging), []);
  });

  test('dockerd 20.10 knows no zstd: such a body fails as a tar', async () => {
    const tar = await tarOf([DOCKERFILE]);
    const { message } = await failure(compress('zstd', tar));
    assert.match(message, /^(unexpected EOF|archive\/tar: invalid tar header)$/);
  });

  test('an empty body is an empty context; a broken one fails in archive/tar words', async () => {
    assert.deepEqual(await failure(Buffer.alloc(0)), { kind: 'system', message: 'Cannot locate specified Dockerfile: Dockerfile' });
    assert.equal((await failure(Buffer.from('FROM busybox\n'))).message, 'unexpected EOF');
    assert.equal((await failure(Buffer.alloc(2048, 7))).message, 'archive/tar: invalid tar header');
    assert.equal((await failure(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 1, 2, 3]))).message, 'exit status 1: xz: (stdin): Unexpected end of input\n');
  });

  test('an evil archive writes nothing outside the context (chrooted as dockerd extracts it)', async () => {
    const tag = randomBytes(6).toString('hex');
    const ctx = await open([
      DOCKERFILE,
      { name: '../dotdot', content: 'x' },
      { name: `/tmp/berth-evil-abs-${tag}`, content: 'x' },
      { name: 'a/../../climb', content: 'x' },
      { name: 'ln', type: 'symlink', linkname: '/' },
      { name: `ln/tmp/berth-evil-link-${tag}`, content: 'x' },
      { name: 'up', type: 'symlink', linkname: '../../..' },
      { name: `up/tmp/berth-evil-up-${tag}`, content: 'x' },
    ]);
    const dir = ctx.dir as string;
    for (const name of ['dotdot', 'climb', `tmp/berth-evil-abs-${tag}`, `tmp/berth-evil-link-${tag}`, `tmp/berth-evil-up-${tag}`]) assert.equal(readFileSync(path.join(dir, name), 'utf8'), 'x', name);
    assert.equal(readlinkSync(path.join(dir, 'ln')), '/');
    for (const name of [`berth-evil-abs-${tag}`, `berth-evil-link-${tag}`, `berth-evil-up-${tag}`]) assert.equal(existsSync(path.join('/tmp', name)), false);
    assert.deepEqual(readdirSync(path.dirname(dir)), ['context']);
    await ctx.close();
  });

  test('a hard link to a file outside is refused with dockerd\'s message', async () => {
    assert.deepEqual(await failure([DOCKERFILE, { name: 'hl', type: 'link', linkname: '/etc/hostname' }]), {
      kind: 'system',
      message: 'Error processing tar file(exit status 1): link /etc/hostname /hl: no such file or directory',
    });
  });

  test("a failure leaves the request's body to the API (destroying it would drop the connection before the error)", async () => {
    // a client still sending
    const body = new PassThrough();
    body.write(gzipSync(await tarOf([DOCKERFILE, { name: 'hl', type: 'link', linkname: '/nowhere' }, { name: 'after', content: 'x'.repeat(100_000) }])));
    await assert.rejects(openBuildContext({ stagingDir: staging, body }), /link \/nowhere \/hl: no such file or directory/);
    assert.equal(body.destroyed, false);
  });

  test('device nodes are made in the context, as dockerd makes them', { skip: process.getuid?.() !== 0 && 'needs root' }, async () => {
    const ctx = await open([DOCKERFILE, { name: 'null', type: 'character-device', devmajor: 1, devminor: 3, mode: 0o666 }]);
    assert.equal(lstatSync(path.join(ctx.dir as string, 'null')).isCharacterDevice(), true);
    await ctx.close();
  });
});

describe('the Dockerfile in the context', () => {
  test('found by the dockerfile parameter, links followed inside the context', async () => {
    const ctx = await open([{ name: 'sub/Df', content: 'FROM a\n' }, { name: 'link', type: 'symlink', linkname: '/sub/Df' }], { dockerfile: 'link' });
    assert.equal(ctx.dockerfileText, 'FROM a\n');
    await ctx.close();
  });

  test('"dockerfile" stands in for a missing "Dockerfile"', async () => {
    const ctx = await open([{ name: 'dockerfile', content: 'FROM b\n' }], { dockerfile: 'Dockerfile' });
    assert.deepEqual([ctx.dockerfileName, ctx.dockerfileText], ['dockerfile', 'FROM b\n']);
    await ctx.close();
  });

  test("dockerd's errors: missing, outside, empty, a directory", async () => {
    const files = [DOCKERFILE, { name: 'empty', content: '' }, { name: 'dir', type: 'directory' as const }, { name: 'file', content: 'x' }];
    assert.deepEqual(await failure(files, { dockerfile: 'foo/Bar' }), { kind: 'system', message: 'Cannot locate specified Dockerfile: foo/Bar' });
    assert.deepEqual(await failure([{ name: 'x', content: 'x' }]), { kind: 'system', message: 'Cannot locate specified Dockerfile: Dockerfile' });
    for (const outside of ['../x', '/../x', 'a/../../b', '..', 'file/x']) {
      assert.deepEqual(await failure(files, { dockerfile: outside }), { kind: 'system', message: `forbidden path outside the build context: ${outside} ()` });
    }
    assert.deepEqual(await failure(files, { dockerfile: 'empty' }), { kind: 'invalidParameter', message: 'the Dockerfile (empty) cannot be empty' });
    assert.match((await failure(files, { dockerfile: 'dir' })).message, /^unexpected error reading Dockerfile: read .*\/context\/dir: is a directory$/);
  });

  test('.dockerignore takes out itself and the Dockerfile when it names them, and nothing else', async () => {
    const files = (ignore: string): LayerEntry[] => [{ name: 'sub/Df', content: 'FROM c\n' }, { name: 'f', content: 'x' }, { name: '.dockerignore', content: ignore }];
    const list = (ctx: BuildContext) => readdirSync(ctx.dir as string).sort();
    let ctx = await open(files('sub\n.dockerignore\nf\n'), { dockerfile: 'sub/Df' });
    assert.deepEqual([list(ctx), readdirSync(path.join(ctx.dir as string, 'sub')), ctx.ignorePatterns], [['f', 'sub'], [], ['sub', '.dockerignore', 'f']]);
    await ctx.close();
    ctx = await open(files('sub/Df\n'), { dockerfile: 'sub/Df' });
    assert.deepEqual(list(ctx), ['.dockerignore', 'f', 'sub']);
    assert.equal(ctx.dockerfileText, 'FROM c\n');
    await ctx.close();
    ctx = await open(files('*\n'), { dockerfile: './sub/Df' });
    assert.deepEqual([list(ctx), readdirSync(path.join(ctx.dir as string, 'sub'))], [['f', 'sub'], []]);
    await ctx.close();
  });

  test("the CLI's Dockerfile from stdin (.dockerfile.<random>, named in .dockerignore) is read, then taken out", async () => {
    const name = '.dockerfile.0123456789abcdef0123';
    const ctx = await open([{ name: 'a', content: 'a' }, { name, content: 'FROM d\n', mode: 0o600 }, { name: '.dockerignore', content: `.dockerignore\n${name}\n` }], { dockerfile: name });
    assert.equal(ctx.dockerfileText, 'FROM d\n');
    assert.deepEqual(readdirSync(ctx.dir as string), ['a']);
    await ctx.close();
  });
});

describe('openBuildContext from a remote URL', () => {
  let server: Server;
  let url: string;
  let repos: string;
  const routes = new Map<string, { status?: number; type?: string; body: Buffer }>();
  before(async () => {
    const tar = await tarOf([{ name: 'Dockerfile', content: 'FROM remote\n' }, { name: 'r', content: 'r' }]);
    routes.set('/ctx.tar', { type: 'application/x-tar', body: tar });
    routes.set('/ctx.tgz', { body: gzipSync(tar) });
    routes.set('/Dockerfile', { type: 'application/octet-stream', body: Buffer.from('FROM plain\n') });
    routes.set('/page', { type: 'text/html', body: Buffer.from('<html></html>') });
    routes.set('/sniffed-page', { body: Buffer.from('  <!DOCTYPE html>\n<html></html>') });
    routes.set('/empty', { type: 'application/x-tar', body: Buffer.alloc(0) });
    repos = path.join(base, 'repos');
    mkdirSync(repos);
    server = createServer((req, res) => {
      const route = routes.get(req.url ?? '');
      if (route !== undefined) {
        res.writeHead(route.status ?? 200, route.type === undefined ? {} : { 'content-type': route.type });
        res.end(route.body);
        return;
      }
      // a dumb git server: the bare repositories' files as they are
      const file = path.join(repos, decodeURIComponent((req.url ?? '').split('?')[0]));
      if (file.startsWith(repos) && existsSync(file) && lstatSync(file).isFile()) {
        res.end(readFileSync(file));
        return;
      }
      res.writeHead(404, 'Not Found');
      res.end('nope\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('a tar, told by its Content-Type or by its bytes', async () => {
    for (const route of ['/ctx.tar', '/ctx.tgz']) {
      const seen: number[] = [];
      const ctx = await openBuildContext({ stagingDir: staging, body: undefined, remote: url + route, onDownloadProgress: (current) => seen.push(current) });
      assert.equal(ctx.dockerfileText, 'FROM remote\n');
      assert.deepEqual(readdirSync(ctx.dir as string).sort(), ['Dockerfile', 'r']);
      assert.ok(seen.length > 0);
      await ctx.close();
    }
  });

  test('text is a Dockerfile alone: no context', async () => {
    const ctx = await openBuildContext({ stagingDir: staging, body: undefined, remote: `${url}/Dockerfile`, dockerfile: 'ignored' });
    assert.deepEqual([ctx.dir, ctx.source, ctx.dockerfileName, ctx.dockerfileText], [undefined, undefined, undefined, 'FROM plain\n']);
    await ctx.close();
    assert.deepEqual(readdirSync(staging), []);
  });

  test("dockerd's errors: a status of 400 or more, an unsupported type, nothing at all, no server", async () => {
    const remote = (route: string) => failure(Buffer.alloc(0), { remote: url + route });
    assert.deepEqual(await remote('/missing'), { kind: 'notFound', message: `error downloading remote context ${url}/missing: failed to GET ${url}/missing with status 404 Not Found: nope` });
    assert.deepEqual(await remote('/page'), { kind: 'system', message: `error detecting content type for remote ${url}/page: unsupported Content-Type "text/html"` });
    assert.deepEqual(await remote('/sniffed-page'), { kind: 'system', message: `error detecting content type for remote ${url}/sniffed-page: unsupported Content-Type ""` });
    assert.deepEqual(await remote('/empty'), { kind: 'system', message: `error detecting content type for remote ${url}/empty: empty response` });
    assert.deepEqual(await failure(Buffer.alloc(0), { remote: 'http://127.0.0.1:1/x' }), {
      kind: 'system',
      message: 'error downloading remote context http://127.0.0.1:1/x: Get "http://127.0.0.1:1/x": dial tcp 127.0.0.1:1: connect: connection refused',
    });
    assert.deepEqual(await failure(Buffer.alloc(0), { remote: 'file:///tmp/x' }), { kind: 'system', message: 'remoteURL (file:///tmp/x) could not be recognized as URL' });
  });

  test('a git repository over dumb HTTP: the ref, the subdirectory, .git in the context', async () => {
    const work = path.join(base, 'work');
    mkdirSync(path.join(work, 'sub'), { recursive: true });
    writeFileSync(path.join(work, 'Dockerfile'), 'FROM git\n');
    writeFileSync(path.join(work, 'sub', 'Dockerfile'), 'FROM sub\n');
    const git = (cwd: string, ...args: string[]) => {
      const r = spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
    };
    git(work, 'init', '-q', '-b', 'master');
    git(work, 'add', '.');
    git(work, 'commit', '-q', '-m', 'init');
    git(base, 'clone', '-q', '--bare', work, path.join(repos, 'repo.git'));
    git(path.join(repos, 'repo.git'), 'update-server-info');

    let ctx = await openBuildContext({ stagingDir: staging, body: undefined, remote: `${url}/repo.git` });
    assert.equal(ctx.dockerfileText, 'FROM git\n');
    assert.deepEqual(readdirSync(ctx.dir as string).sort(), ['.git', 'Dockerfile', 'sub']);
    await ctx.close();
    ctx = await openBuildContext({ stagingDir: staging, body: undefined, remote: `${url}/repo.git#master:sub` });
    assert.deepEqual([ctx.dockerfileText, readdirSync(ctx.dir as string)], ['FROM sub\n', ['Dockerfile']]);
    await ctx.close();

    const { message } = await failure(Buffer.alloc(0), { remote: `${url}/repo.git#nobranch` });
    assert.equal(message, "error fetching: fatal: couldn't find remote ref nobranch\n: exit status 128");
    assert.match((await failure(Buffer.alloc(0), { remote: `${url}/repo.git#master:../..` })).message, /^error setting git context, "\.\.\/\.\." not within git root: /);
    assert.match((await failure(Buffer.alloc(0), { remote: `${url}/repo.git#master:Dockerfile` })).message, /^error setting git context, not a directory: .*\/Dockerfile$/);
    assert.match((await failure(Buffer.alloc(0), { remote: 'git://127.0.0.1:1/x.git' })).message, /^error fetching: fatal: unable to connect to 127\.0\.0\.1[^]*: exit status 128$/);
    assert.equal((await failure(Buffer.alloc(0), { remote: `${url}/repo.git#-x` })).message, 'invalid refspec: -x');
  });
});
