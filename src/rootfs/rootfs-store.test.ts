// RootfsStore on real overlay mounts under the temporary directory. Every mount a test makes is
// unmounted in its own `finally`, and after() detaches whatever is still mounted under the scratch
// directory before deleting it, then checks that the mount table holds nothing of it.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { extract, type Header } from 'tar-stream';
import { EngineError } from '../errors.js';
import { Staging } from '../store/staging.js';
import { applyLayer } from '../image/archive/layer-applier.js';
import { sha256Digest, type Digest } from '../image/digest.js';
import { displayPath, toBytePath } from './byte-path.js';
import { mountPoints } from './overlay-mount.js';
import { RootfsStore, type Change } from './rootfs-store.js';
import { parseGetfattrDump } from './xattr-dump.js';
import { tarOf } from '../../test/helpers/image-archives.js';

type EntrySpec = Partial<Header> & { name: string; data?: string };

// a space in the path: mountinfo writes it as \040, which the store must read back
const scratch = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'berth rootfs-')));
const MTIME = new Date('2021-03-04T05:06:07Z');
/** cap_net_raw+p, a VFS_CAP_REVISION_2 value: binary, with NUL bytes */
const CAP_NET_RAW = Buffer.from('0100000200200000000000000000000000000000', 'hex');

after(async () => {
  const mine = (point: string) => point === toBytePath(scratch) || point.startsWith(`${toBytePath(scratch)}/`);
  for (const point of (await mountPoints()).filter(mine).sort((a, b) => b.length - a.length)) {
    execFileSync('umount', ['-l', displayPath(point)]);
  }
  rmSync(scratch, { recursive: true, force: true });
  assert.deepEqual((await mountPoints()).filter(mine), [], 'a mount was left behind');
  assert.ok(!readFileSync('/proc/mounts', 'utf8').includes(scratch.replaceAll(' ', '\\040')));
});

const chains = new Map<Digest, string[]>();
/** A layer's directory and its parents', as the image store gives them. */
const layersOf = (top: Digest | null): string[] => (top === null ? [] : (chains.get(top) ?? []));
const staging = new Staging(path.join(scratch, 'staging'));
const store = new RootfsStore({ root: path.join(scratch, 'rootfs'), staging });

/** The tests' tars: fixed times and root ownership unless an entry says otherwise. */
function makeTar(entries: EntrySpec[]): Promise<Buffer> {
  return tarOf(entries.map(({ data, ...header }) => ({ mtime: MTIME, uid: 0, gid: 0, ...header, content: data })));
}

/** A layer directory made by applyLayer on top of `parent` (a chain ID), registered as a chain. */
async function makeLayer(dir: string, tar: Buffer | Readable, parent: Digest | null): Promise<Digest> {
  mkdirSync(dir, { recursive: true });
  const lowerDirs = parent === null ? [] : (chains.get(parent) ?? []);
  await applyLayer(Buffer.isBuffer(tar) ? Readable.from([tar]) : tar, { target: dir, lowerDirs });
  const chainId = sha256Digest(dir);
  chains.set(chainId, [dir, ...lowerDirs]);
  return chainId;
}

/** Two layers: a small Linux-like tree, then a layer that modifies, deletes (whiteout) and hides (opaque). */
async function baseImage(name: string): Promise<Digest> {
  const dir = path.join(scratch, 'layers', name);
  const first = await makeLayer(
    path.join(dir, '1'),
    await makeTar([
      { name: 'etc/', type: 'directory', mode: 0o755 },
      { name: 'etc/passwd', data: 'root:x:0:0::/root:/bin/sh\n', pax: { 'SCHILY.xattr.user.origin': 'layer1' } },
      { name: 'etc/hostname', data: 'base\n' },
      { name: 'a/b/c/f', data: '1' },
      { name: 'a/b/g', data: '2' },
      { name: 'd/x' },
      { name: 'd/y' },
      { name: 'e/f/h' },
      { name: 'e2/f/h' },
      { name: 'bin/busybox', mode: 0o755, data: 'ELF' },
      { name: 'bin/sh', type: 'symlink', linkname: 'busybox' },
      { name: 'bin/ping', mode: 0o755, data: 'ping' },
      { name: 'bin/tool', mode: 0o755, data: 'tool' },
      { name: 'bin/tool2', type: 'link', linkname: 'bin/tool' },
      { name: 'opt/legacy/file', data: 'old' },
      { name: 'srv/old', data: 'old' },
      { name: 'usr/share/doc/readme', data: 'read me' },
    ]),
    null,
  );
  // a binary capability, which tar-stream's pack cannot write
  execFileSync('setfattr', ['-h', '-n', 'security.capability', '-v', `0x${CAP_NET_RAW.toString('hex')}`, path.join(dir, '1', 'bin/ping')]);
  return makeLayer(
    path.join(dir, '2'),
    await makeTar([
      { name: 'etc/passwd', data: 'root:x:0:0::/root:/bin/sh\nuser:x:1000:1000::/home/user:/bin/sh\n' },
      { name: 'opt/.wh.legacy' },
      { name: 'srv/.wh..wh..opq' },
      { name: 'srv/new', data: 'new' },
    ]),
    first,
  );
}

/** What a container does through its merged directory. */
function changeThings(merged: string): void {
  const at = (rel: string) => path.join(merged, rel);
  writeFileSync(at('etc/passwd'), 'guest:x:405:100::/:/bin/sh\n', { flag: 'a' });
  writeFileSync(at('etc/newfile'), 'new');
  rmSync(at('etc/hostname'));
  rmSync(at('d'), { recursive: true });
  mkdirSync(at('d'));
  writeFileSync(at('d/z'), 'z');
  writeFileSync(at('d/x'), 'x');
  mkdirSync(at('n/m'), { recursive: true });
  writeFileSync(at('n/m/k'), 'k');
  chmodSync(at('a'), 0o700);
  utimesSync(at('a/b/c/f'), new Date('2022-01-01T00:00:00Z'), new Date('2022-01-01T00:00:00Z'));
  chownSync(at('a/b/g'), 5, 5);
  rmSync(at('e'), { recursive: true });
  rmSync(at('e2/f'), { recursive: true });
  mkdirSync(at('e2/f'));
  writeFileSync(at('n/h1'), 'linked');
  linkSync(at('n/h1'), at('n/h2'));
  linkSync(at('bin/tool'), at('n/tool3'));
  symlinkSync('../etc/passwd', at('n/link'));
  execFileSync('mknod', [at('n/fifo'), 'p']);
  execFileSync('mknod', ['-m', '0666', at('n/null'), 'c', '1', '3']);
  writeFileSync(at('n/suid'), 'suid');
  chownSync(at('n/suid'), 1000, 1000);
  chmodSync(at('n/suid'), 0o4750);
  writeFileSync(at('n/capfile'), 'cap');
  execFileSync('setfattr', ['-n', 'security.capability', '-v', `0x${CAP_NET_RAW.toString('hex')}`, at('n/capfile')]);
  execFileSync('setfattr', ['-n', 'user.note', '-v', '0x00ff0a', at('n/capfile')]);
  mkdirSync(at('opt/legacy'));
  writeFileSync(at('opt/legacy/x'), 'x');
  rmSync(at('srv'), { recursive: true });
  mkdirSync(at('srv'));
  writeFileSync(at('srv/z'), 'z');
  // only the capability changes (setxattr leaves the modification time)
  execFileSync('setfattr', ['-n', 'security.capability', '-v', '0x0100000200300000000000000000000000000000', at('bin/ping')]);
  // opened for writing, so copied up, but not changed: not a change
  closeSync(openSync(at('usr/share/doc/readme'), 'r+'));
}

const M = 0;
const A = 1;
const D = 2;
const EXPECTED_CHANGES: Change[] = [
  { path: '/a', kind: M },
  { path: '/a/b', kind: M },
  { path: '/a/b/c', kind: M },
  { path: '/a/b/c/f', kind: M },
  { path: '/a/b/g', kind: M },
  { path: '/bin', kind: M },
  { path: '/bin/ping', kind: M },
  { path: '/d', kind: M },
  { path: '/d/x', kind: M },
  { path: '/d/y', kind: D },
  { path: '/d/z', kind: A },
  { path: '/e', kind: D },
  { path: '/e2', kind: M },
  { path: '/e2/f', kind: M },
  { path: '/e2/f/h', kind: D },
  { path: '/etc', kind: M },
  { path: '/etc/hostname', kind: D },
  { path: '/etc/newfile', kind: A },
  { path: '/etc/passwd', kind: M },
  { path: '/n', kind: A },
  { path: '/n/capfile', kind: A },
  { path: '/n/fifo', kind: A },
  { path: '/n/h1', kind: A },
  { path: '/n/h2', kind: A },
  { path: '/n/link', kind: A },
  { path: '/n/m', kind: A },
  { path: '/n/m/k', kind: A },
  { path: '/n/null', kind: A },
  { path: '/n/suid', kind: A },
  { path: '/n/tool3', kind: A },
  { path: '/opt', kind: M },
  { path: '/opt/legacy', kind: A },
  { path: '/opt/legacy/x', kind: A },
  { path: '/srv', kind: M },
  { path: '/srv/new', kind: D },
  { path: '/srv/z', kind: A },
];

/** The init layer's entries: their times are their layer's making, and a commit does not carry them. */
const INIT_PATHS = ['.dockerenv', 'dev', 'dev/console', 'dev/pts', 'dev/shm', 'etc/hostname', 'etc/hosts', 'etc/mtab', 'etc/resolv.conf', 'proc', 'sys'];

/** A snapshot's entries without the init layer's, and without the time of /etc, which the init layer copies anew. */
function outsideInitLayer(entries: Record<string, string>): Record<string, string> {
  const kept = Object.fromEntries(Object.entries(entries).filter(([rel]) => !INIT_PATHS.includes(rel)));
  kept.etc = kept.etc.split(' ').filter((_, i) => i !== 3).join(' ');
  return kept;
}

/** Everything a merged view shows but its root: type, mode, owner, time (seconds), content, link target, device, xattrs; and which paths share an inode. */
function snapshot(root: string): { entries: Record<string, string>; hardLinks: string[][] } {
  const xattrs = parseGetfattrDump(
    execFileSync('getfattr', ['-R', '-P', '-h', '--absolute-names', '-d', '-m', '-', '-e', 'hex', '--', root], { encoding: 'latin1', maxBuffer: 1 << 26 }),
  );
  const entries: Record<string, string> = {};
  const inodes = new Map<string, string[]>();
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(root, rel)).sort()) {
      const childRel = rel === '' ? name : `${rel}/${name}`;
      const file = path.join(root, childRel);
      const st = lstatSync(file);
      const attrs = [...(xattrs.get(toBytePath(file)) ?? [])]
        .filter(([attr]) => !attr.startsWith('trusted.overlay.'))
        .map(([attr, value]) => `${attr}=${value.toString('hex')}`)
        .sort();
      let detail = '';
      if (st.isFile()) detail = createHash('sha256').update(readFileSync(file)).digest('hex');
      else if (st.isSymbolicLink()) detail = readlinkSync(file);
      else if (st.isCharacterDevice() || st.isBlockDevice()) detail = `rdev=${st.rdev}`;
      entries[childRel] = [st.mode.toString(8), st.uid, st.gid, Math.floor(st.mtimeMs / 1000), st.size * Number(!st.isDirectory()), detail, ...attrs].join(' ');
      if (!st.isDirectory() && st.nlink > 1) inodes.set(`${st.dev}:${st.ino}`, [...(inodes.get(`${st.dev}:${st.ino}`) ?? []), childRel]);
      if (st.isDirectory()) walk(childRel);
    }
  };
  walk('');
  return { entries, hardLinks: [...inodes.values()].filter((group) => group.length > 1).map((group) => group.sort()).sort() };
}

interface ListedEntry {
  name: string;
  type: string;
  mode: number;
  uid: number;
  linkname: string | null;
  pax: Record<string, string> | null;
}

async function listTar(tar: Buffer): Promise<ListedEntry[]> {
  const entries: ListedEntry[] = [];
  const ex = extract();
  const done = new Promise<void>((resolve, reject) => {
    ex.on('finish', resolve);
    ex.on('error', reject);
  });
  ex.on('entry', (header, stream, next) => {
    const { name, type, mode, uid, linkname, pax } = header as Header & { pax: Record<string, string> | null };
    entries.push({ name, type: type ?? 'unknown', mode: mode ?? 0, uid: uid ?? 0, linkname: linkname ?? null, pax });
    stream.on('end', () => next());
    stream.resume();
  });
  ex.end(tar);
  await done;
  return entries;
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function xattr(file: string, name: string): Buffer | undefined {
  try {
    return execFileSync('getfattr', ['-h', '--absolute-names', '--only-values', '-n', name, '--', file], { stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
}

async function assertEngineError(promise: Promise<unknown>, kind: string, fragment: string): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof EngineError, `not an EngineError: ${String(err)}`);
    assert.equal(err.kind, kind);
    assert.ok(err.message.includes(fragment), err.message);
    return true;
  });
}

describe('RootfsStore', () => {
  it('mounts the layers under a writable upper layer, lists the changes as docker diff, and exports them as a layer that gives the same view', async () => {
    const image = await baseImage('main');
    const record = await store.create('c1', image, layersOf(image));
    const initDir = path.join(scratch, 'rootfs', 'c1', 'init');
    assert.deepEqual(record, { id: 'c1', topLayer: image, lowerDirs: [initDir, ...(chains.get(image) ?? [])] });
    assert.equal(await store.isMounted('c1'), false);
    const check = 'c1-check';
    try {
      // two at once, and one more: the same path, and one mount
      const [merged, concurrent] = await Promise.all([store.mount('c1'), store.mount('c1')]);
      assert.equal(merged, path.join(scratch, 'rootfs', 'c1', 'merged'));
      assert.equal(concurrent, merged);
      assert.equal(await store.mount('c1'), merged);
      assert.equal(await store.isMounted('c1'), true);
      assert.equal((await mountPoints()).filter((p) => p === toBytePath(merged)).length, 1);
      // short enough for the layers' own paths (mountinfo writes a space as \040)
      const escape = (p: string) => p.replaceAll(' ', '\\040');
      const line = readFileSync('/proc/self/mountinfo', 'utf8').split('\n').find((l) => l.split(' ')[4] === escape(merged));
      assert.ok(line?.includes(`lowerdir=${record.lowerDirs.map(escape).join(':')},upperdir=${escape(store.upperDir('c1'))}`), line);
      // the layers' merged view: layer 2's passwd, its whiteout and its opaque directory
      assert.match(readFileSync(path.join(merged, 'etc/passwd'), 'utf8'), /^user:/m);
      assert.equal(existsSync(path.join(merged, 'opt/legacy')), false);
      assert.deepEqual(readdirSync(path.join(merged, 'srv')), ['new']);

      changeThings(merged);
      const upper = store.upperDir('c1');
      const whiteout = lstatSync(path.join(upper, 'etc/hostname'));
      assert.ok(whiteout.isCharacterDevice() && whiteout.rdev === 0, 'deleting a lower file leaves a whiteout in the upper layer');
      assert.equal(xattr(path.join(upper, 'd'), 'trusted.overlay.opaque')?.toString(), 'y');
      assert.ok(existsSync(path.join(upper, 'usr/share/doc/readme')), 'the unchanged file was copied up');

      assert.deepEqual(await store.changes('c1'), EXPECTED_CHANGES);

      const tar = await readAll(store.exportChanges('c1'));
      const listed = await listTar(tar);
      const byName = new Map(listed.map((e) => [e.name, e]));
      for (const name of ['etc/.wh.hostname', '.wh.e']) assert.deepEqual([byName.get(name)?.type, byName.get(name)?.mode], ['file', 0o600], name);
      for (const dir of ['d', 'e2/f', 'srv']) {
        // right after its directory, with its permission bits
        const at = listed.findIndex((e) => e.name === `${dir}/`);
        assert.deepEqual([listed[at + 1].name, listed[at + 1].type, listed[at + 1].mode], [`${dir}/.wh..wh..opq`, 'file', 0o755]);
      }
      assert.equal(byName.get('etc/'.concat('.wh..wh..opq')), undefined, 'a directory changed in place is not opaque');
      assert.equal(byName.get('n/h2')?.type, 'link');
      assert.equal(byName.get('n/h2')?.linkname, 'n/h1');
      assert.equal(byName.get('n/tool3')?.type, 'link');
      assert.equal(byName.get('n/tool3')?.linkname, 'bin/tool');
      assert.equal(byName.get('n/link')?.linkname, '../etc/passwd');
      assert.equal(byName.get('n/')?.type, 'directory');
      assert.ok(!listed.some((e) => Object.keys(e.pax ?? {}).some((key) => key.includes('trusted.overlay'))));
      // the binary capability, byte for byte, in the PAX record
      assert.ok(tar.includes(Buffer.concat([Buffer.from(' SCHILY.xattr.security.capability='), CAP_NET_RAW, Buffer.from('\n')])));
      // GNU tar reads it too
      const gnu = execFileSync('tar', ['-tvf', '-'], { input: tar, encoding: 'utf8' });
      assert.match(gnu, /^-rwsr-x--- 1000\/1000 .* n\/suid$/m);

      // the tar applied over the same layers shows what the container showed (besides the init
      // layer: its own makes again the /etc/hostname the container deleted)
      const committed = await makeLayer(path.join(scratch, 'layers', 'main', 'committed'), Readable.from([tar]), image);
      await store.create(check, committed, layersOf(committed));
      const checkMerged = await store.mount(check);
      const want = snapshot(merged);
      const got = snapshot(checkMerged);
      assert.deepEqual(outsideInitLayer(got.entries), outsideInitLayer(want.entries));
      assert.equal(got.entries['etc/hostname']?.split(' ')[4], '0');
      assert.equal(want.entries['etc/hostname'], undefined);
      assert.deepEqual(got.hardLinks, want.hardLinks);
      assert.deepEqual(want.hardLinks, [['bin/tool', 'n/tool3'], ['n/h1', 'n/h2']]);
      assert.equal(xattr(path.join(checkMerged, 'n/capfile'), 'security.capability')?.toString('hex'), CAP_NET_RAW.toString('hex'));
      // and nothing changed in the committed view but what the layers hold
      assert.deepEqual(await store.changes(check), []);
    } finally {
      for (const id of ['c1', check]) if (store.get(id)) await store.remove(id);
    }
  });

  it('makes the init layer with the root filesystem, under the container\'s layer: the merged view shows it, the changes never list it', async () => {
    const image = await baseImage('init');
    await store.create('ci', image, layersOf(image));
    try {
      const merged = await store.mount('ci');
      assert.equal(readFileSync(path.join(merged, 'etc/hostname'), 'utf8'), '', "the image's file is covered");
      assert.equal(readlinkSync(path.join(merged, 'etc/mtab')), '/proc/mounts');
      for (const rel of ['.dockerenv', 'dev/console', 'etc/hosts', 'etc/resolv.conf']) assert.ok(lstatSync(path.join(merged, rel)).isFile(), rel);
      for (const rel of ['dev/pts', 'dev/shm', 'proc', 'sys']) assert.ok(lstatSync(path.join(merged, rel)).isDirectory(), rel);
      assert.deepEqual(readdirSync(store.upperDir('ci')), []);
      assert.deepEqual(await store.changes('ci'), []);
      // what a run's mounts need is there: nothing is made in the container's layer
      assert.equal(readFileSync(path.join(merged, 'etc/passwd'), 'utf8').startsWith('root:'), true);
      rmSync(path.join(merged, '.dockerenv'));
      assert.deepEqual(await store.changes('ci'), [{ path: '/.dockerenv', kind: D }]);
    } finally {
      await store.remove('ci');
    }
    assert.deepEqual(readdirSync(staging.root), []);
  });

  it('mounts a root filesystem made before init layers over the stack its record names, without one', async () => {
    const image = await baseImage('legacy');
    const root = path.join(scratch, 'rootfs');
    const dir = path.join(root, 'old');
    for (const sub of ['upper', 'work', 'merged']) mkdirSync(path.join(dir, sub), { recursive: true });
    writeFileSync(path.join(dir, 'rootfs.json'), JSON.stringify({ id: 'old', topLayer: image, lowerDirs: layersOf(image) }));
    const restarted = new RootfsStore({ root, staging });
    try {
      const merged = await restarted.mount('old');
      assert.equal(existsSync(path.join(merged, '.dockerenv')), false);
      assert.equal(readFileSync(path.join(merged, 'etc/hostname'), 'utf8'), 'base\n');
      writeFileSync(path.join(merged, 'added'), 'a');
      assert.deepEqual(await restarted.changes('old'), [{ path: '/added', kind: A }]);
    } finally {
      await restarted.remove('old');
    }
  });

  it('keeps the changes through an unmount and a new mount; unmounting is idempotent', async () => {
    const image = await baseImage('remount');
    await store.create('c2', image, layersOf(image));
    try {
      const merged = await store.mount('c2');
      writeFileSync(path.join(merged, 'etc/kept'), 'kept');
      rmSync(path.join(merged, 'bin/busybox'));
      const before = await store.changes('c2');
      assert.equal(await store.unmount('c2'), 'unmounted');
      assert.equal(await store.isMounted('c2'), false);
      assert.equal((await mountPoints()).includes(toBytePath(merged)), false);
      assert.deepEqual(readdirSync(merged), []);
      assert.equal(await store.unmount('c2'), 'not-mounted');

      assert.equal(await store.mount('c2'), merged);
      assert.equal(readFileSync(path.join(merged, 'etc/kept'), 'utf8'), 'kept');
      // a new store on the same root (berthd restarted) finds the record, and the mount
      const restarted = new RootfsStore({ root: path.join(scratch, 'rootfs'), staging });
      assert.deepEqual(restarted.get('c2'), store.get('c2'));
      assert.equal(await restarted.isMounted('c2'), true);
      assert.equal(await restarted.mount('c2'), merged);
      assert.equal(existsSync(path.join(merged, 'bin/busybox')), false);
      assert.equal(existsSync(path.join(merged, '.dockerenv')), true);
      assert.deepEqual(await store.changes('c2'), before);
      assert.deepEqual(before, [
        { path: '/bin', kind: M },
        { path: '/bin/busybox', kind: D },
        { path: '/etc', kind: M },
        { path: '/etc/kept', kind: A },
      ]);
    } finally {
      await store.remove('c2');
    }
  });

  it('detaches a busy mount (umount -l) only when a plain unmount fails, and says so', async () => {
    const image = await baseImage('busy');
    await store.create('c3', image, layersOf(image));
    let fd: number | undefined;
    try {
      const merged = await store.mount('c3');
      fd = openSync(path.join(merged, 'etc/passwd'), 'r');
      assert.equal(await store.unmount('c3'), 'detached');
      assert.equal(await store.isMounted('c3'), false);
    } finally {
      if (fd !== undefined) closeSync(fd);
      await store.remove('c3');
    }
  });

  it('leases: a lease mounts a stopped root filesystem and its release unmounts it; a run\'s unmount waits for the leases, a run\'s mount keeps it', async () => {
    const image = await baseImage('lease');
    await store.create('cl', image, layersOf(image));
    try {
      const first = await store.lease('cl');
      const second = await store.lease('cl');
      assert.equal(await store.isMounted('cl'), true);
      await first.release();
      await first.release();
      assert.equal(await store.isMounted('cl'), true);
      await second.release();
      assert.equal(await store.isMounted('cl'), false);
      // a run starts under a lease: the lease's release leaves the run's mount
      const held = await store.lease('cl');
      await store.mount('cl');
      await held.release();
      assert.equal(await store.isMounted('cl'), true);
      // the run ends under a lease: the unmount is deferred to the release
      const late = await store.lease('cl');
      assert.equal(await store.unmount('cl'), 'deferred');
      assert.equal(await store.isMounted('cl'), true);
      await late.release();
      assert.equal(await store.isMounted('cl'), false);
    } finally {
      await store.remove('cl');
    }
  });

  it('shows the layers as create made them through a read-only view, apart from the mount, which a removal also undoes', async () => {
    const image = await baseImage('view');
    await store.create('cv', image, layersOf(image));
    const target = path.join(scratch, 'rootfs', 'cv', 'lower');
    try {
      const merged = await store.mount('cv');
      writeFileSync(path.join(merged, 'mine'), 'x');
      const view = await store.lowerView('cv');
      assert.equal(view.mergedDir, target);
      assert.ok(existsSync(path.join(view.mergedDir, 'etc/passwd')));
      assert.ok(existsSync(path.join(view.mergedDir, '.dockerenv')));
      // the container's own changes are not in it, and nothing can be written there
      assert.equal(existsSync(path.join(view.mergedDir, 'mine')), false);
      assert.throws(() => writeFileSync(path.join(view.mergedDir, 'nope'), 'x'), { code: 'EROFS' });
      await view.release();
      assert.equal((await mountPoints()).includes(toBytePath(target)), false);
      await store.lowerView('cv');
    } finally {
      await store.remove('cv');
    }
    assert.equal((await mountPoints()).includes(toBytePath(target)), false);
  });

  it('removes everything: the mount, the directories, the record and the links no one uses', async () => {
    const image = await baseImage('remove');
    await store.create('c4', image, layersOf(image));
    const dir = path.join(scratch, 'rootfs', 'c4');
    try {
      const merged = await store.mount('c4');
      writeFileSync(path.join(merged, 'file'), 'x');
      assert.ok(store.list().some((r) => r.id === 'c4'));
    } finally {
      assert.equal(await store.remove('c4'), 'unmounted');
    }
    assert.equal(existsSync(dir), false);
    assert.equal(store.get('c4'), undefined);
    assert.ok(!store.list().some((r) => r.id === 'c4'));
    assert.equal((await mountPoints()).includes(toBytePath(path.join(dir, 'merged'))), false);
    assert.deepEqual(readdirSync(staging.root), []);
    await assertEngineError(store.mount('c4'), 'notFound', 'no such root filesystem: c4');
    await assertEngineError(store.remove('c4'), 'notFound', 'c4');
    // the layers are untouched
    assert.ok(existsSync(path.join(scratch, 'layers', 'remove', '1', 'etc/passwd')));
  });

  it('refuses an existing ID and an invalid one', async () => {
    const image = await baseImage('conflict');
    await store.create('c5', image, layersOf(image));
    try {
      await assertEngineError(store.create('c5', image, layersOf(image)), 'conflict', 'c5');
      await assertEngineError(store.create('../x', image, layersOf(image)), 'invalidParameter', 'invalid root filesystem ID');
      await assertEngineError(store.create('l', image, layersOf(image)), 'invalidParameter', 'invalid root filesystem ID');
      await assertEngineError(store.create('c6', sha256Digest('unknown'), layersOf(sha256Digest('unknown'))), 'notFound', 'no such layer');
    } finally {
      await store.remove('c5');
    }
  });

  it('gives an image without layers its init layer alone', async () => {
    const record = await store.create('c7', null, layersOf(null));
    try {
      assert.equal(record.topLayer, null);
      assert.deepEqual(record.lowerDirs, [path.join(scratch, 'rootfs', 'c7', 'init')]);
      const merged = await store.mount('c7');
      assert.deepEqual(readdirSync(merged).sort(), ['.dockerenv', 'dev', 'etc', 'proc', 'sys']);
      writeFileSync(path.join(merged, 'hello'), 'hi');
      assert.deepEqual(await store.changes('c7'), [{ path: '/hello', kind: A }]);
      const listed = await listTar(await readAll(store.exportChanges('c7')));
      assert.deepEqual(
        listed.map((e) => e.name),
        ['hello'],
      );
    } finally {
      await store.remove('c7');
    }
  });

  it('lists and archives names that are not UTF-8 byte for byte', async () => {
    const image = await baseImage('bytes');
    await store.create('c8', image, layersOf(image));
    try {
      const merged = await store.mount('c8');
      const name = Buffer.concat([Buffer.from(`${merged}/etc/caf`), Buffer.from([0xe9])]);
      writeFileSync(name, 'latin1');
      assert.deepEqual(await store.changes('c8'), [
        { path: '/etc', kind: M },
        { path: '/etc/caf\uFFFD', kind: A },
      ]);
      const tar = await readAll(store.exportChanges('c8'));
      assert.ok(tar.includes(Buffer.from([0x20, ...Buffer.from('path=etc/caf'), 0xe9, 0x0a])), 'the raw name in a PAX path record');
    } finally {
      await store.remove('c8');
    }
  });

  it('mounts a deep stack of layers with long paths through short links, and refuses one that cannot fit a page', async () => {
    const deepStore = new RootfsStore({ root: path.join(scratch, 'deep', 'rootfs'), staging });
    const longName = 'a-rather-long-directory-name-for-layers-'.repeat(5);
    let parent: Digest | null = null;
    for (let i = 0; i < 60; i++) {
      const entries: EntrySpec[] = [{ name: `layer-${i}.txt`, data: String(i) }];
      if (i === 59) entries.push({ name: '.wh.layer-0.txt' });
      parent = await makeLayer(path.join(scratch, 'deep', longName, String(i).padStart(2, '0'), 'diff'), await makeTar(entries), parent);
    }
    const top = parent as Digest;
    const lowerDirs = chains.get(top) ?? [];
    assert.ok(lowerDirs.join(':').length > 4096, 'the layers alone are longer than a page');
    await deepStore.create('deep', top, layersOf(top));
    try {
      const merged = await deepStore.mount('deep');
      const names = readdirSync(merged)
        .filter((name) => name.startsWith('layer-'))
        .sort();
      assert.equal(names.length, 59);
      assert.ok(!names.includes('layer-0.txt'));
      assert.equal(readFileSync(path.join(merged, 'layer-58.txt'), 'utf8'), '58');
      const options = readFileSync('/proc/self/mountinfo', 'utf8')
        .split('\n')
        .find((line) => line.includes(' overlay ') && line.split(' ')[4].endsWith('/deep/merged'));
      assert.match(options ?? '', /lowerdir=l\/[A-Z2-7]{26}:l\/[A-Z2-7]{26}:/);
      writeFileSync(path.join(merged, 'layer-1.txt'), 'changed');
      assert.deepEqual(await deepStore.changes('deep'), [{ path: '/layer-1.txt', kind: M }]);
    } finally {
      await deepStore.remove('deep');
    }
    assert.deepEqual(readdirSync(path.join(scratch, 'deep', 'rootfs', 'l')), []);

    const many: string[] = [];
    for (let i = 0; i < 200; i++) {
      const dir = path.join(scratch, 'deep', 'many', String(i));
      mkdirSync(dir, { recursive: true });
      many.push(dir);
    }
    chains.set(sha256Digest('many'), many);
    await assertEngineError(deepStore.create('too-deep', sha256Digest('many'), layersOf(sha256Digest('many'))), 'invalidParameter', "over the kernel's limit");
    assert.equal(deepStore.get('too-deep'), undefined);
  });
});
