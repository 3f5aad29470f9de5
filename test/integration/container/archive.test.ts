// docker cp both ways through the CLI and the raw archive endpoints: the stat header, Docker's tar
// naming, running and stopped containers, binds, dockerd's errors, and escapes that must stay
// inside the container (links to /, crafted tars with `../`, absolute names, a link then a file
// through it, hard links out).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { extract } from 'tar-stream';
import type { Berthd } from '../../helpers/berthd.js';
import { tempDir } from '../../helpers/berthd.js';
import { inspectContainer, startWithBusybox, teardown } from '../../helpers/containers.js';
import { tarOf } from '../../helpers/image-archives.js';

const json = (text: string) => JSON.parse(text) as Record<string, unknown>;

/** inspect's GraphDriver.Data (a directory of the overlay) */
async function graphDir(d: Berthd, ref: string, key: 'UpperDir' | 'MergedDir'): Promise<string> {
  const c = (await inspectContainer(d, ref)) as unknown as { GraphDriver: { Data: Record<string, string> } };
  return c.GraphDriver.Data[key];
}

/** The names in a tar (ASCII content only: the helpers read bodies as text). */
async function tarNames(body: string): Promise<string[]> {
  const names: string[] = [];
  const x = extract();
  x.on('entry', (header, stream, next) => {
    names.push(header.type === 'symlink' ? `${header.name} -> ${header.linkname}` : header.name);
    stream.on('end', next);
    stream.resume();
  });
  const done = new Promise<void>((resolve, reject) => x.on('finish', () => resolve()).on('error', reject));
  x.end(Buffer.from(body, 'utf8'));
  await done;
  return names;
}

const FIXTURE = () =>
  tarOf([
    { name: 'd', type: 'directory' },
    { name: 'd/a', content: 'hi\n' },
    { name: 'd/sub', type: 'directory' },
    { name: 'd/sub/b', content: 'x\n' },
    { name: 'd/lnk', type: 'symlink', linkname: '/etc' },
    { name: 'd/rel', type: 'symlink', linkname: 'a' },
    { name: 'esc', type: 'symlink', linkname: '/' },
  ]);

describe('container archive (docker cp)', () => {
  let d: Berthd;
  let work: string;
  let id: string;
  let upper: string;
  const tag = randomBytes(4).toString('hex');

  before(async () => {
    d = await startWithBusybox();
    work = tempDir('berth-archive-');
    id = (await d.docker(['run', '-d', '--name', 'cp1', 'busybox', 'sleep', '1000'])).stdout.trim();
    const put = await d.request('PUT', '/containers/cp1/archive?path=/', { body: await FIXTURE() });
    assert.equal(put.status, 200, put.body);
    upper = await graphDir(d, id, 'UpperDir');
  });
  after(async () => {
    await teardown(d);
  });

  test('HEAD: the stat header as dockerd (Go file modes, a link target resolved in the container); 404 and 400 in its words', async () => {
    const stat = async (p: string) => {
      const r = await d.request('HEAD', `/containers/cp1/archive?path=${encodeURIComponent(p)}`);
      assert.equal(r.status, 200);
      return JSON.parse(Buffer.from(r.headers['x-docker-container-path-stat'] as string, 'base64').toString()) as Record<string, unknown>;
    };
    const dir = await stat('/d');
    assert.deepEqual([dir.name, dir.size, dir.mode, dir.linkTarget], ['d', 4096, 2 ** 31 + 0o755, '']);
    assert.match(dir.mtime as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    const file = await stat('/d/a');
    assert.deepEqual([file.name, file.size, file.mode], ['a', 3, 0o644]);
    assert.deepEqual([(await stat('/d/rel')).mode, (await stat('/d/rel')).linkTarget], [2 ** 27 + 0o777, '/d/a']);
    assert.equal((await stat('/d/lnk')).linkTarget, '/etc');
    assert.equal((await stat('/d/.')).name, '.');
    assert.equal((await stat('/tmp')).mode, 2 ** 31 + 2 ** 20 + 0o777);
    const missing = await d.request('GET', '/containers/cp1/archive?path=/nope');
    assert.equal(missing.status, 404);
    assert.equal(json(missing.body).message, 'Could not find the file /nope in container cp1');
    assert.equal((await d.request('HEAD', '/containers/cp1/archive?path=/d/nope/x')).status, 404);
    const empty = await d.request('GET', '/containers/cp1/archive');
    assert.equal(empty.status, 400);
    assert.equal((await d.request('GET', '/containers/cp1/archive?path=/d/a/')).status, 500);
    assert.equal((await d.request('GET', '/containers/nosuch/archive?path=/')).status, 404);
  });

  test('GET: the top entry is the base name, `/.` the contents, a trailing / follows a link', async () => {
    const names = async (p: string) => tarNames((await d.request('GET', `/containers/cp1/archive?path=${encodeURIComponent(p)}`)).body);
    assert.deepEqual(await names('/d'), ['d/', 'd/a', 'd/lnk -> /etc', 'd/rel -> a', 'd/sub/', 'd/sub/b']);
    assert.deepEqual(await names('/d/.'), ['./', './a', './lnk -> /etc', './rel -> a', './sub/', './sub/b']);
    assert.deepEqual(await names('/d/a'), ['a']);
    assert.deepEqual(await names('/d/lnk'), ['lnk -> /etc']);
    assert.ok((await names('/d/lnk/')).includes('lnk/passwd'));
  });

  test('docker cp out: a file, a directory, dir/., a link as a link, -L following it', async () => {
    const out = path.join(work, 'out');
    mkdirSync(out);
    for (const [src, dst, flags] of [
      ['/d/a', 'a', []],
      ['/d', 'd1', []],
      ['/d/.', 'd2', []],
      ['/d/rel', 'rel', []],
      ['/d/rel', 'relL', ['-L']],
    ] as const) {
      const r = await d.docker(['cp', ...flags, `cp1:${src}`, path.join(out, dst)]);
      assert.equal(r.code, 0, r.stderr);
    }
    assert.equal(readFileSync(path.join(out, 'a'), 'utf8'), 'hi\n');
    assert.deepEqual(readdirSync(path.join(out, 'd1')).sort(), ['a', 'lnk', 'rel', 'sub']);
    assert.deepEqual(readdirSync(path.join(out, 'd2')).sort(), ['a', 'lnk', 'rel', 'sub']);
    assert.equal(readlinkSync(path.join(out, 'rel')), 'a');
    assert.equal(readFileSync(path.join(out, 'relL'), 'utf8'), 'hi\n');
    const missing = await d.docker(['cp', 'cp1:/d/nope', path.join(out, 'x')]);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /Could not find the file \/d\/nope in container cp1/);
  });

  test('docker cp in: a file and a directory into a running container; a missing parent is 404, a file destination 500; gzip and zstd archives, a corrupt one 400', async () => {
    const src = path.join(work, 'in');
    mkdirSync(path.join(src, 'dir'), { recursive: true });
    writeFileSync(path.join(src, 'f'), 'file\n');
    writeFileSync(path.join(src, 'dir', 'g'), 'g\n');
    assert.equal((await d.docker(['cp', path.join(src, 'f'), 'cp1:/tmp/f'])).code, 0);
    assert.equal((await d.docker(['cp', path.join(src, 'dir'), 'cp1:/tmp/'])).code, 0);
    assert.equal(readFileSync(path.join(upper, 'tmp', 'f'), 'utf8'), 'file\n');
    assert.equal(readFileSync(path.join(upper, 'tmp', 'dir', 'g'), 'utf8'), 'g\n');
    const missing = await d.docker(['cp', path.join(src, 'f'), 'cp1:/nope/f']);
    assert.match(missing.stderr, /Could not find the file \/nope in container cp1/);
    const notDir = await d.request('PUT', '/containers/cp1/archive?path=/d/a', { body: await tarOf([{ name: 'x', content: 'x' }]) });
    assert.equal(notDir.status, 500);
    assert.equal(json(notDir.body).message, 'extraction point is not a directory');
    const gz = await d.request('PUT', '/containers/cp1/archive?path=/tmp', { body: await import('node:zlib').then(async (z) => z.gzipSync(await tarOf([{ name: 'gz', content: 'z' }]))) });
    assert.equal(gz.status, 200);
    assert.equal(readFileSync(path.join(upper, 'tmp', 'gz'), 'utf8'), 'z');
    const zstd = await d.request('PUT', '/containers/cp1/archive?path=/tmp', { body: execFileSync('zstd', ['-q', '-c'], { input: await tarOf([{ name: 'zst', content: 's' }]) }) });
    assert.equal(zstd.status, 200);
    assert.equal(readFileSync(path.join(upper, 'tmp', 'zst'), 'utf8'), 's');
    // zstd refusing the data is the client's error
    const corrupt = await d.request('PUT', '/containers/cp1/archive?path=/tmp', { body: Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), randomBytes(64)]) });
    assert.equal(corrupt.status, 400);
    assert.match(json(corrupt.body).message as string, /^invalid zstd layer: zstd: /);
  });

  test('noOverwriteDirNonDir refuses a file over a directory with dockerd message; without it the file replaces it', async () => {
    await d.request('PUT', '/containers/cp1/archive?path=/tmp', { body: await tarOf([{ name: 'ow', type: 'directory' }, { name: 'ow/in', content: '1' }]) });
    const over = await tarOf([{ name: 'ow', content: 'file' }]);
    const refused = await d.request('PUT', '/containers/cp1/archive?path=/tmp&noOverwriteDirNonDir=true', { body: over });
    assert.equal(refused.status, 500);
    assert.equal(json(refused.body).message, 'Error processing tar file(exit status 1): cannot overwrite directory "/tmp/ow" with non-directory "/tmp"');
    assert.equal((await d.request('PUT', '/containers/cp1/archive?path=/tmp', { body: over })).status, 200);
    assert.equal(readFileSync(path.join(upper, 'tmp', 'ow'), 'utf8'), 'file');
  });

  test('docker cp in: a fifo and device nodes are made with their modes, numbers and owners', async () => {
    const special = await tarOf([
      { name: 'sp', type: 'directory' },
      { name: 'sp/fifo', type: 'fifo', mode: 0o640, uid: 7, gid: 8 },
      { name: 'sp/null', type: 'character-device', mode: 0o666, devmajor: 1, devminor: 3 },
      { name: 'sp/loop', type: 'block-device', mode: 0o600, devmajor: 7, devminor: 0 },
    ]);
    assert.equal((await d.request('PUT', '/containers/cp1/archive?path=/tmp', { body: special })).status, 200);
    const at = (name: string) => lstatSync(path.join(upper, 'tmp', 'sp', name));
    assert.ok(at('fifo').isFIFO());
    assert.deepEqual([at('fifo').mode & 0o7777, at('fifo').uid, at('fifo').gid], [0o640, 7, 8]);
    assert.ok(at('null').isCharacterDevice());
    assert.deepEqual([at('null').mode & 0o7777, at('null').rdev], [0o666, (1 << 8) | 3]);
    assert.ok(at('loop').isBlockDevice());
    assert.equal(at('loop').rdev, 7 << 8);
  });

  test('escapes stay in the container: a link to /, `../` names, absolute names, a link then a file through it, hard links out', async () => {
    const name = `berth-escape-${tag}`;
    const src = path.join(work, name);
    writeFileSync(src, 'escape\n');
    // /esc -> / in the container: through it is the container's /etc, never the host's
    assert.equal((await d.docker(['cp', src, 'cp1:/esc/etc/'])).code, 0);
    assert.equal(readFileSync(path.join(upper, 'etc', name), 'utf8'), 'escape\n');
    assert.equal(existsSync(`/etc/${name}`), false);
    const etc = path.join(work, 'etc-out');
    assert.equal((await d.docker(['cp', 'cp1:/esc/etc/.', etc])).code, 0);
    assert.equal(existsSync(path.join(etc, 'shadow')), false);
    assert.ok(existsSync(path.join(etc, 'passwd')));

    const put = (body: Buffer) => d.request('PUT', '/containers/cp1/archive?path=/tmp', { body });
    const dotdot = await put(await tarOf([{ name: `../../../../${name}-dotdot`, content: 'x' }]));
    assert.equal(dotdot.status, 500);
    assert.equal(json(dotdot.body).message, `Error processing tar file(exit status 1): "../../../../${name}-dotdot" is outside of "/tmp"`);
    assert.equal(existsSync(`/${name}-dotdot`), false);

    assert.equal((await put(await tarOf([{ name: `/${name}-abs`, content: 'x' }]))).status, 200);
    assert.ok(existsSync(path.join(upper, 'tmp', `${name}-abs`)));
    assert.equal(existsSync(`/${name}-abs`), false);

    const through = await put(await tarOf([{ name: 'lk', type: 'symlink', linkname: '/etc' }, { name: `lk/${name}-through`, content: 'x' }]));
    assert.equal(through.status, 200, through.body);
    assert.ok(existsSync(path.join(upper, 'etc', `${name}-through`)));
    assert.equal(existsSync(`/etc/${name}-through`), false);

    const climbing = await put(await tarOf([{ name: 'up', type: 'symlink', linkname: '../../../../' }, { name: `up/${name}-up`, content: 'x' }]));
    assert.equal(climbing.status, 500);
    assert.equal(json(climbing.body).message, 'Error processing tar file(exit status 1): invalid symlink "/tmp/up" -> "../../../../"');

    const hard = await put(await tarOf([{ name: 'hl', type: 'link', linkname: '../../../etc/passwd' }]));
    assert.equal(hard.status, 500);
    assert.equal(json(hard.body).message, 'Error processing tar file(exit status 1): invalid hardlink "/etc/passwd" -> "../../../etc/passwd"');
    const hardAbs = await put(await tarOf([{ name: 'hl2', type: 'link', linkname: '/etc/passwd' }]));
    assert.equal(hardAbs.status, 500);
    assert.equal(existsSync(path.join(upper, 'tmp', 'hl2')), false);
    // a hard link inside the directory works and shares the inode
    assert.equal((await put(await tarOf([{ name: 'h1', content: 'same' }, { name: 'h2', type: 'link', linkname: 'h1' }]))).status, 200);
    assert.equal(lstatSync(path.join(upper, 'tmp', 'h2')).ino, lstatSync(path.join(upper, 'tmp', 'h1')).ino);
  });

  test('a directory replaced by a link mid-archive: later entries under its name go through the link, as with dockerd', async () => {
    const name = `berth-swap-${tag}`;
    const swap = await tarOf([
      { name: 'sw', type: 'directory' },
      { name: 'sw/a', content: '1' },
      { name: 'sw', type: 'symlink', linkname: '/etc' },
      { name: `sw/${name}`, content: '2' },
    ]);
    const res = await d.request('PUT', '/containers/cp1/archive?path=/tmp', { body: swap });
    assert.equal(res.status, 200, res.body);
    assert.equal(readlinkSync(path.join(upper, 'tmp', 'sw')), '/etc');
    assert.equal(readFileSync(path.join(upper, 'etc', name), 'utf8'), '2');
    assert.equal(existsSync(`/etc/${name}`), false);
  });

  test('an entry changing how its own directory resolves: the next entries resolve it again', async () => {
    // /tmp/s/l -> q/n/.. is /tmp/s/q while q/n is a directory; once q/n -> /etc, it is /etc/.. = /.
    // (dockerd refuses the entry that replaces q/n: its own path goes through q/n; berth makes it
    // in the directory it resolved first.)
    const name = `berth-reroute-${tag}`;
    const reroute = await tarOf([
      { name: 's', type: 'directory' },
      { name: 's/q', type: 'directory' },
      { name: 's/q/n', type: 'directory' },
      { name: 's/l', type: 'symlink', linkname: 'q/n/..' },
      { name: 's/l/f1', content: '1' },
      { name: 's/l/n', type: 'symlink', linkname: '/etc' },
      { name: `s/l/${name}`, content: '2' },
    ]);
    const res = await d.request('PUT', '/containers/cp1/archive?path=/tmp', { body: reroute });
    assert.equal(res.status, 200, res.body);
    assert.equal(readFileSync(path.join(upper, 'tmp', 's', 'q', 'f1'), 'utf8'), '1');
    assert.equal(existsSync(path.join(upper, 'tmp', 's', 'q', name)), false);
    assert.equal(readFileSync(path.join(upper, name), 'utf8'), '2');
    assert.equal(existsSync(`/${name}`), false);
  });

  test('a stopped container: its root filesystem is mounted for the copy and unmounted after; binds read and written at their source', async () => {
    const bind = path.join(work, 'bind');
    mkdirSync(bind);
    writeFileSync(path.join(bind, 'from-host'), 'host\n');
    const c = (await d.docker(['create', '--name', 'cp2', '-v', `${bind}:/b`, '-v', `${work}:/ro:ro`, 'busybox', 'true'])).stdout.trim();
    const src = path.join(work, 'to-bind');
    writeFileSync(src, 'into bind\n');
    assert.equal((await d.docker(['cp', src, 'cp2:/b/'])).code, 0);
    assert.equal(readFileSync(path.join(bind, 'to-bind'), 'utf8'), 'into bind\n');
    assert.equal((await d.docker(['cp', src, 'cp2:/tmp/'])).code, 0);
    const out = path.join(work, 'from-bind');
    assert.equal((await d.docker(['cp', 'cp2:/b/from-host', out])).code, 0);
    assert.equal(readFileSync(out, 'utf8'), 'host\n');
    const ro = await d.request('PUT', '/containers/cp2/archive?path=/ro', { body: await tarOf([{ name: 'x', content: 'x' }]) });
    assert.equal(ro.status, 500);
    assert.equal(json(ro.body).message, 'mounted volume is marked read-only');
    const merged = await graphDir(d, c, 'MergedDir');
    assert.equal(readFileSync('/proc/self/mountinfo', 'utf8').includes(` ${merged} `), false);
    // and it still starts, with the copied file
    assert.equal((await d.docker(['start', 'cp2'])).code, 0);
    const readOnly = (await d.docker(['create', '--name', 'cp3', '--read-only', 'busybox', 'true'])).stdout.trim();
    const refused = await d.request('PUT', `/containers/${readOnly}/archive?path=/tmp`, { body: await tarOf([{ name: 'x', content: 'x' }]) });
    assert.equal(refused.status, 500);
    assert.equal(json(refused.body).message, 'container rootfs is marked read-only');
  });

  test("a created, never started container has its init layer's files: GET /etc/resolv.conf (dockerode's archive test), docker cp of /.dockerenv", async () => {
    const c = (await d.docker(['create', 'busybox', 'true'])).stdout.trim();
    const r = await d.request('GET', `/containers/${c}/archive?path=/etc/resolv.conf`);
    assert.equal(r.status, 200, r.body);
    assert.equal(r.headers['content-type'], 'application/x-tar');
    // dockerd 20.10: {"name":"resolv.conf","size":0,"mode":493,...,"linkTarget":""}, a tar of resolv.conf alone
    const stat = JSON.parse(Buffer.from(r.headers['x-docker-container-path-stat'] as string, 'base64').toString()) as Record<string, unknown>;
    assert.deepEqual([stat.name, stat.size, stat.mode, stat.linkTarget], ['resolv.conf', 0, 0o755, '']);
    assert.deepEqual(await tarNames(r.body), ['resolv.conf']);
    const mtab = await d.request('HEAD', `/containers/${c}/archive?path=/etc/mtab`);
    const mtabStat = JSON.parse(Buffer.from(mtab.headers['x-docker-container-path-stat'] as string, 'base64').toString()) as Record<string, unknown>;
    assert.deepEqual([mtabStat.mode, mtabStat.linkTarget], [2 ** 27 + 0o777, '/proc/mounts']);
    const out = path.join(work, 'created-dockerenv');
    const cp = await d.docker(['cp', `${c}:/.dockerenv`, out]);
    assert.equal(cp.code, 0, cp.stderr);
    assert.equal(lstatSync(out).size, 0);
    assert.equal(lstatSync(out).mode & 0o7777, 0o755);
  });

  test('events: archive-path on GET (not HEAD), extract-to-dir on PUT, none for a failure', async () => {
    const since = Math.floor(Date.now() / 1000) - 1;
    const ev = (await d.docker(['create', 'busybox', 'true'])).stdout.trim();
    await d.request('HEAD', `/containers/${ev}/archive?path=/etc`);
    await d.request('GET', `/containers/${ev}/archive?path=/etc`);
    await d.request('PUT', `/containers/${ev}/archive?path=/tmp`, { body: await tarOf([{ name: 'ev', content: 'x' }]) });
    await d.request('GET', `/containers/${ev}/archive?path=/nope`);
    await d.request('PUT', `/containers/${ev}/archive?path=/tmp`, { body: 'not a tar' });
    const until = Math.ceil(Date.now() / 1000) + 1;
    const r = await d.request('GET', `/events?since=${since}&until=${until}&filters=${encodeURIComponent(JSON.stringify({ container: [ev] }))}`);
    const actions = r.body
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { Action: string }).Action)
      .filter((a) => a === 'archive-path' || a === 'extract-to-dir');
    assert.deepEqual(actions, ['archive-path', 'extract-to-dir']);
  });
});
