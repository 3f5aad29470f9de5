import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import type { Header } from 'tar-stream';
import { EngineError } from '../../errors.js';
import { applyLayer } from './layer-applier.js';
import { cleanArchivePath } from './safe-path.js';
import { tarOf } from '../../../test/helpers/image-archives.js';

type EntrySpec = Partial<Header> & { name: string; pax?: Record<string, string>; data?: string | Buffer };

const scratch = mkdtempSync(path.join(os.tmpdir(), 'berth-layer-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const MTIME = new Date('2021-03-04T05:06:07Z');
let cases = 0;

/** A target directory with a sentinel directory and an `outside` directory beside it. */
function newCase(): { dir: string; target: string; sentinel: string; outside: string } {
  const dir = path.join(scratch, `case-${++cases}`);
  const target = path.join(dir, 'target');
  const sentinel = path.join(dir, 'sentinel');
  const outside = path.join(dir, 'outside');
  for (const d of [target, sentinel, outside]) mkdirSync(d, { recursive: true });
  return { dir, target, sentinel, outside };
}

/** Nothing landed beside the target: the case directory holds what it held, the sentinel nothing. */
function assertNothingOutside(c: { dir: string; sentinel: string }, outsideFiles: string[] = []): void {
  assert.deepEqual(readdirSync(c.dir).sort(), ['outside', 'sentinel', 'target']);
  assert.deepEqual(readdirSync(c.sentinel), []);
  assert.deepEqual(readdirSync(path.join(c.dir, 'outside')).sort(), [...outsideFiles].sort());
}

/** The tests' tars: fixed times and root ownership unless an entry says otherwise. */
function makeTar(entries: EntrySpec[]): Promise<Buffer> {
  return tarOf(entries.map(({ data, ...header }) => ({ mtime: MTIME, uid: 0, gid: 0, ...header, content: data })));
}

function apply(target: string, tar: Buffer, lowerDirs: string[] = [], signal?: AbortSignal) {
  return applyLayer(Readable.from([tar]), { target, lowerDirs, signal });
}

async function assertRefused(promise: Promise<unknown>, ...fragments: string[]): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof EngineError, `not an EngineError: ${String(err)}`);
    assert.equal(err.kind, 'invalidParameter');
    for (const fragment of fragments) assert.ok(err.message.includes(fragment), err.message);
    return true;
  });
}

function xattr(file: string, name: string): Buffer | undefined {
  try {
    return execFileSync('getfattr', ['-h', '--absolute-names', '--only-values', '-n', name, '--', file], { stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
}

/** Rewrites a header block in place (then its checksum). */
function patchHeader(tar: Buffer, offset: number, patch: (block: Buffer) => void): void {
  const block = tar.subarray(offset, offset + 512);
  patch(block);
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
}

/** Replaces a placeholder value in the archive's bytes by binary bytes of the same length. */
function replaceBytes(tar: Buffer, placeholder: string, value: Buffer): void {
  assert.equal(placeholder.length, value.length);
  const at = tar.indexOf(Buffer.from(`=${placeholder}\n`));
  assert.ok(at >= 0);
  value.copy(tar, at + 1);
}

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

describe('applyLayer', () => {
  it('writes regular files and directories with their modes, owners and times', async () => {
    const c = newCase();
    const tar = await makeTar([
      { name: 'etc/', type: 'directory', mode: 0o755 },
      { name: 'etc/passwd', mode: 0o644, data: 'root:x:0:0::/root:/bin/sh\n' },
      { name: 'bin/su', mode: 0o4755, data: 'ELF' },
      { name: 'srv/group', type: 'directory', mode: 0o2775, gid: 50 },
      { name: 'tmp', type: 'directory', mode: 0o1777 },
      { name: 'home/u/secret', mode: 0o600, uid: 1000, gid: 1001, data: 'x' },
      { name: 'home/u/empty', mode: 0o640, uid: 1000, gid: 1001 },
    ]);
    const { sizeBytes } = await apply(c.target, tar);

    assert.equal(readFileSync(path.join(c.target, 'etc/passwd'), 'utf8'), 'root:x:0:0::/root:/bin/sh\n');
    const su = statSync(path.join(c.target, 'bin/su'));
    assert.equal(su.mode & 0o7777, 0o4755);
    assert.equal(statSync(path.join(c.target, 'srv/group')).mode & 0o7777, 0o2775);
    assert.equal(statSync(path.join(c.target, 'srv/group')).gid, 50);
    assert.equal(statSync(path.join(c.target, 'tmp')).mode & 0o7777, 0o1777);
    const secret = statSync(path.join(c.target, 'home/u/secret'));
    assert.deepEqual([secret.uid, secret.gid, secret.mode & 0o7777], [1000, 1001, 0o600]);
    assert.equal(statSync(path.join(c.target, 'home/u/empty')).size, 0);
    // the times of files, and of directories written into after their entry
    for (const file of ['etc', 'etc/passwd', 'bin/su', 'home/u/secret', 'srv/group']) {
      assert.equal(seconds(statSync(path.join(c.target, file)).mtime), seconds(MTIME), file);
    }
    // parents the archive does not list are made 0755 root:root, as dockerd does
    const home = statSync(path.join(c.target, 'home'));
    assert.deepEqual([home.uid, home.gid, home.mode & 0o7777], [0, 0, 0o755]);
    assert.equal(sizeBytes, 26 + 3 + 1);
    assertNothingOutside(c);
  });

  it('writes a large file through backpressure', async () => {
    const c = newCase();
    const data = Buffer.alloc(8 * 1024 * 1024 + 7, 0x61);
    const { sizeBytes } = await apply(c.target, await makeTar([{ name: 'big', data }]));
    assert.equal(statSync(path.join(c.target, 'big')).size, data.length);
    assert.equal(sizeBytes, data.length);
  });

  it('writes symbolic links as given, with their owner and times, and never follows them', async () => {
    const c = newCase();
    const tar = await makeTar([
      { name: 'abs', type: 'symlink', linkname: '/etc/passwd', uid: 5, gid: 6 },
      { name: 'dir/up', type: 'symlink', linkname: '../../../../x' },
      { name: 'dir/', type: 'directory', mode: 0o755 },
    ]);
    const { sizeBytes } = await apply(c.target, tar);
    assert.equal(readlinkSync(path.join(c.target, 'abs')), '/etc/passwd');
    assert.equal(readlinkSync(path.join(c.target, 'dir/up')), '../../../../x');
    const abs = lstatSync(path.join(c.target, 'abs'));
    assert.deepEqual([abs.uid, abs.gid], [5, 6]);
    assert.equal(seconds(abs.mtime), seconds(MTIME));
    // dockerd's size counts a link's length
    assert.equal(sizeBytes, '/etc/passwd'.length + '../../../../x'.length);
    assertNothingOutside(c);
  });

  it('makes hard links within the layer, counted once in the size', async () => {
    const c = newCase();
    const tar = await makeTar([
      { name: 'usr/bin/a', mode: 0o755, data: 'hello' },
      { name: 'usr/bin/b', type: 'link', linkname: 'usr/bin/a', mode: 0o755 },
      { name: './usr/bin/c', type: 'link', linkname: '/usr/bin/a', mode: 0o755 },
    ]);
    const { sizeBytes } = await apply(c.target, tar);
    const a = statSync(path.join(c.target, 'usr/bin/a'));
    assert.equal(statSync(path.join(c.target, 'usr/bin/b')).ino, a.ino);
    assert.equal(statSync(path.join(c.target, 'usr/bin/c')).ino, a.ino);
    assert.equal(a.nlink, 3);
    assert.equal(sizeBytes, 5);
  });

  it('copies up a parent layer\'s file that a hard link names, then links to the copy', async () => {
    const base = newCase();
    await apply(base.target, await makeTar([
      { name: 'usr/', type: 'directory', mode: 0o755 },
      { name: 'usr/lib/', type: 'directory', mode: 0o700 },
      { name: 'usr/lib/tool', mode: 0o4711, uid: 7, gid: 8, data: 'tool' },
      { name: 'usr/lib/gone', data: 'gone' },
      { name: 'opt/old', data: 'old' },
    ]));
    const middle = newCase();
    await apply(middle.target, await makeTar([
      { name: 'usr/lib/', type: 'directory', mode: 0o750, gid: 4 },
      { name: 'usr/lib/.wh.gone' },
      { name: 'opt/.wh..wh..opq' },
    ]));
    const c = newCase();
    const lowers = [middle.target, base.target];
    await apply(c.target, await makeTar([
      { name: 'usr/lib/tool2', type: 'link', linkname: 'usr/lib/tool', mode: 0o4711, uid: 7, gid: 8 },
    ]), lowers);

    const copy = statSync(path.join(c.target, 'usr/lib/tool'));
    const lowerFile = statSync(path.join(base.target, 'usr/lib/tool'));
    assert.equal(readFileSync(path.join(c.target, 'usr/lib/tool'), 'utf8'), 'tool');
    assert.deepEqual([copy.uid, copy.gid, copy.mode & 0o7777], [7, 8, 0o4711]);
    assert.equal(statSync(path.join(c.target, 'usr/lib/tool2')).ino, copy.ino);
    assert.notEqual(lowerFile.ino, copy.ino);
    assert.equal(lowerFile.nlink, 1);
    // the copied-up parent looks like the topmost parent layer's
    const lib = statSync(path.join(c.target, 'usr/lib'));
    assert.deepEqual([lib.gid, lib.mode & 0o7777], [4, 0o750]);
    assert.equal(seconds(lib.mtime), seconds(MTIME));

    // a file a higher layer deleted, or hid under an opaque directory, is not there to link to
    const deleted = newCase();
    await assertRefused(apply(deleted.target, await makeTar([{ name: 'x', type: 'link', linkname: 'usr/lib/gone' }]), lowers), '"x"', 'no such file');
    const hidden = newCase();
    await assertRefused(apply(hidden.target, await makeTar([{ name: 'x', type: 'link', linkname: 'opt/old' }]), lowers), 'no such file');
    const missing = newCase();
    await assertRefused(apply(missing.target, await makeTar([{ name: 'x', type: 'link', linkname: 'nope' }]), lowers), 'no such file');
  });

  it('makes character and block devices and FIFOs', async () => {
    const c = newCase();
    const tar = await makeTar([
      { name: 'dev/null', type: 'character-device', devmajor: 1, devminor: 3, mode: 0o666 },
      { name: 'dev/loop0', type: 'block-device', devmajor: 7, devminor: 0, mode: 0o660, gid: 6 },
      { name: 'run/fifo', type: 'fifo', mode: 0o620, uid: 3 },
    ]);
    await apply(c.target, tar);
    const nul = statSync(path.join(c.target, 'dev/null'));
    assert.ok(nul.isCharacterDevice());
    assert.equal(nul.rdev, (1 << 8) | 3);
    assert.equal(nul.mode & 0o7777, 0o666);
    const loop = statSync(path.join(c.target, 'dev/loop0'));
    assert.ok(loop.isBlockDevice());
    assert.equal(loop.rdev, 7 << 8);
    assert.deepEqual([loop.gid, loop.mode & 0o7777], [6, 0o660]);
    const fifo = statSync(path.join(c.target, 'run/fifo'));
    assert.ok(fifo.isFIFO());
    assert.deepEqual([fifo.uid, fifo.mode & 0o7777], [3, 0o620]);
  });

  it('sets PAX xattrs byte for byte, binary capabilities included, after the owner', async () => {
    const c = newCase();
    // cap_setuid=ep, v2: its permitted word holds the byte 0x80, which is not UTF-8
    const capability = Buffer.from('0100000280000000000000000000000000000000', 'hex');
    const binary = Buffer.from([0xff, 0x00, 0x80, 0x41]);
    const tar = await makeTar([
      { name: 'usr/bin/newuidmap', mode: 0o755, uid: 0, data: 'ELF', pax: { 'SCHILY.xattr.security.capability': 'C'.repeat(20), 'SCHILY.xattr.user.bin': 'B'.repeat(4) } },
      { name: 'text', data: 'x', pax: { 'SCHILY.xattr.user.note': 'héllo wörld' } },
      { name: 'dir', type: 'directory', mode: 0o755, pax: { 'SCHILY.xattr.user.dir': 'd', 'SCHILY.xattr.trusted.overlay.opaque': 'y' } },
    ]);
    replaceBytes(tar, 'C'.repeat(20), capability);
    replaceBytes(tar, 'B'.repeat(4), binary);
    await apply(c.target, tar);
    assert.deepEqual(xattr(path.join(c.target, 'usr/bin/newuidmap'), 'security.capability'), capability);
    assert.deepEqual(xattr(path.join(c.target, 'usr/bin/newuidmap'), 'user.bin'), binary);
    assert.equal(xattr(path.join(c.target, 'text'), 'user.note')?.toString('utf8'), 'héllo wörld');
    assert.equal(xattr(path.join(c.target, 'dir'), 'user.dir')?.toString('utf8'), 'd');
    // overlayfs' own attributes come from whiteout files only, never from the archive
    assert.equal(xattr(path.join(c.target, 'dir'), 'trusted.overlay.opaque'), undefined);
  });

  it('finds the raw xattrs whatever the chunking, with long names and PAX paths', async () => {
    const longDir = `${'d'.repeat(120)}/${'e'.repeat(120)}/${'f'.repeat(120)}`;
    const value = Buffer.from([0x80, 0x81, 0xfe, 0xff, 0x00]);
    const tar = await makeTar([
      { name: `${longDir}/`, type: 'directory', mode: 0o755 },
      { name: `${longDir}/file`, data: Buffer.alloc(1000, 7), pax: { 'SCHILY.xattr.user.raw': 'R'.repeat(5) } },
      { name: 'plain', data: 'p' },
      { name: 'last', data: 'l', pax: { 'SCHILY.xattr.user.last': 'L'.repeat(5) } },
    ]);
    replaceBytes(tar, 'R'.repeat(5), value);
    replaceBytes(tar, 'L'.repeat(5), value);
    for (const size of [tar.length, 7, 511, 513]) {
      const c = newCase();
      const chunks: Buffer[] = [];
      for (let at = 0; at < tar.length; at += size) chunks.push(tar.subarray(at, at + size));
      await applyLayer(Readable.from(chunks), { target: c.target, lowerDirs: [] });
      assert.deepEqual(xattr(path.join(c.target, longDir, 'file'), 'user.raw'), value, `chunks of ${size}`);
      assert.deepEqual(xattr(path.join(c.target, 'last'), 'user.last'), value, `chunks of ${size}`);
      assert.equal(xattr(path.join(c.target, 'plain'), 'user.last'), undefined);
    }
  });

  it('takes owners and times from PAX records over the header\'s', async () => {
    const c = newCase();
    await apply(c.target, await makeTar([{ name: 'f', data: 'f', pax: { uid: '3000000', gid: '3000001', mtime: '1600000000.25' } }]));
    const stats = statSync(path.join(c.target, 'f'));
    assert.deepEqual([stats.uid, stats.gid], [3000000, 3000001]);
    assert.equal(stats.mtimeMs, 1600000000250);
  });

  it('turns whiteouts into 0/0 character devices and opaque markers into trusted.overlay.opaque', async () => {
    const c = newCase();
    const tar = await makeTar([
      { name: 'etc/', type: 'directory', mode: 0o755 },
      { name: 'etc/.wh.passwd', uid: 3, gid: 4 },
      { name: 'etc/shadow', data: 'no' },
      { name: 'etc/.wh.shadow' },
      { name: 'var/.wh..wh..opq' },
      { name: 'var/new', data: 'new' },
      { name: '.wh..wh.plnk/', type: 'directory' },
      { name: '.wh..wh.plnk/123.456', data: 'aufs' },
      { name: '.wh..wh.aufs', data: 'aufs' },
    ]);
    await apply(c.target, tar);
    for (const hidden of ['etc/passwd', 'etc/shadow']) {
      const stats = lstatSync(path.join(c.target, hidden));
      assert.ok(stats.isCharacterDevice(), hidden);
      assert.equal(stats.rdev, 0);
    }
    assert.deepEqual([lstatSync(path.join(c.target, 'etc/passwd')).uid, lstatSync(path.join(c.target, 'etc/passwd')).gid], [3, 4]);
    assert.equal(xattr(path.join(c.target, 'var'), 'trusted.overlay.opaque')?.toString(), 'y');
    assert.equal(xattr(path.join(c.target, 'etc'), 'trusted.overlay.opaque'), undefined);
    assert.deepEqual(readdirSync(c.target).sort(), ['etc', 'var']);
    assert.deepEqual(readdirSync(path.join(c.target, 'etc')).sort(), ['passwd', 'shadow']);
    assert.deepEqual(readdirSync(path.join(c.target, 'var')), ['new']);
    assert.equal(seconds(statSync(path.join(c.target, 'etc')).mtime), seconds(MTIME));
  });

  it('lets a later entry replace an earlier one, and merges a directory into a directory', async () => {
    const c = newCase();
    writeFileSync(path.join(c.outside, 'probe'), 'untouched');
    const tar = await makeTar([
      { name: 'a', data: 'file' },
      { name: 'a', type: 'directory', mode: 0o700 },
      { name: 'd/child', data: 'child' },
      { name: 'd', type: 'directory', mode: 0o711 },
      { name: 'e/child', data: 'child' },
      { name: 'e', data: 'now a file' },
      // a link to a file outside, then a file of the same name: the link is replaced, not written through
      { name: 'l', type: 'symlink', linkname: path.join(c.outside, 'probe') },
      { name: 'l', data: 'replaced' },
      // a device, then a file of the same name: never written into the device
      { name: 'n', type: 'character-device', devmajor: 1, devminor: 3 },
      { name: 'n', data: 'plain' },
    ]);
    await apply(c.target, tar);
    assert.ok(statSync(path.join(c.target, 'a')).isDirectory());
    assert.equal(statSync(path.join(c.target, 'a')).mode & 0o7777, 0o700);
    assert.equal(readFileSync(path.join(c.target, 'd/child'), 'utf8'), 'child');
    assert.equal(statSync(path.join(c.target, 'd')).mode & 0o7777, 0o711);
    assert.equal(readFileSync(path.join(c.target, 'e'), 'utf8'), 'now a file');
    assert.ok(lstatSync(path.join(c.target, 'l')).isFile());
    assert.equal(readFileSync(path.join(c.target, 'l'), 'utf8'), 'replaced');
    assert.ok(lstatSync(path.join(c.target, 'n')).isFile());
    assert.equal(readFileSync(path.join(c.outside, 'probe'), 'utf8'), 'untouched');
    assertNothingOutside(c, ['probe']);
  });

  it('skips entries for the root itself', async () => {
    const c = newCase();
    await apply(c.target, await makeTar([{ name: './', type: 'directory', mode: 0o700, uid: 9 }, { name: 'f', data: 'f' }]));
    assert.equal(statSync(c.target).uid, 0);
    assert.deepEqual(readdirSync(c.target), ['f']);
  });

  it('honours an abort signal', async () => {
    const c = newCase();
    const tar = await makeTar([{ name: 'first', data: 'one' }, { name: 'second', data: Buffer.alloc(1 << 20) }]);
    const source = new PassThrough();
    source.write(tar.subarray(0, 2048));
    const ac = new AbortController();
    const applying = applyLayer(source, { target: c.target, lowerDirs: [], signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    await assert.rejects(applying, { name: 'AbortError' });
    await assert.rejects(apply(newCase().target, tar, [], AbortSignal.abort()), { name: 'AbortError' });
  });

  describe('refuses archives that would write outside the target', () => {
    it('a relative name that climbs out: ../x', async () => {
      const c = newCase();
      await assertRefused(apply(c.target, await makeTar([{ name: '../x', data: 'x' }])), '"../x"', 'outside the layer');
      assert.ok(!existsSync(path.join(c.dir, 'x')));
      assertNothingOutside(c);
    });

    it('a name that climbs out from inside: a/../../x', async () => {
      const c = newCase();
      await assertRefused(apply(c.target, await makeTar([{ name: 'a/../../sentinel/x', data: 'x' }])), '"a/../../sentinel/x"');
      assert.ok(!existsSync(path.join(c.sentinel, 'x')));
      assertNothingOutside(c);
    });

    it('an absolute name stays inside (the leading slash is dropped, as dockerd does): /abs, /../x', async () => {
      const c = newCase();
      await apply(c.target, await makeTar([{ name: '/abs', data: 'a' }, { name: '/../rooted', data: 'r' }, { name: `/${c.sentinel}/x`, data: 's' }]));
      assert.equal(readFileSync(path.join(c.target, 'abs'), 'utf8'), 'a');
      assert.equal(readFileSync(path.join(c.target, 'rooted'), 'utf8'), 'r');
      assert.equal(readFileSync(path.join(c.target, c.sentinel, 'x'), 'utf8'), 's');
      assertNothingOutside(c);
    });

    it('a file through a symbolic link to a directory outside: a -> /etc, then a/passwd', async () => {
      const c = newCase();
      const tar = await makeTar([{ name: 'a', type: 'symlink', linkname: c.sentinel }, { name: 'a/passwd', data: 'pwned' }]);
      await assertRefused(apply(c.target, tar), '"a/passwd"', 'symbolic link "a"');
      assertNothingOutside(c);
    });

    it('a file through a relative link: up -> ../.., then up/x', async () => {
      const c = newCase();
      const tar = await makeTar([
        { name: 'd/up', type: 'symlink', linkname: '../..' },
        { name: 'd/up/sentinel/x', data: 'pwned' },
      ]);
      await assertRefused(apply(c.target, tar), '"d/up/sentinel/x"', 'symbolic link "d/up"');
      assertNothingOutside(c);
    });

    it('a link to / and then link/<path outside>', async () => {
      const c = newCase();
      const outsideRel = path.join(c.sentinel, 'x').slice(1);
      const tar = await makeTar([{ name: 'root', type: 'symlink', linkname: '/' }, { name: `root/${outsideRel}`, data: 'pwned' }]);
      await assertRefused(apply(c.target, tar), 'symbolic link "root"');
      assert.ok(!existsSync(path.join(c.sentinel, 'x')));
      assertNothingOutside(c);
    });

    it('a directory entry through a link', async () => {
      const c = newCase();
      const tar = await makeTar([{ name: 'a', type: 'symlink', linkname: c.sentinel }, { name: 'a/sub/', type: 'directory' }]);
      await assertRefused(apply(c.target, tar), 'symbolic link "a"');
      assertNothingOutside(c);
    });

    it('a hard link to ../../etc/passwd', async () => {
      const c = newCase();
      writeFileSync(path.join(c.outside, 'victim'), 'secret');
      const tar = await makeTar([{ name: 'h', type: 'link', linkname: '../outside/victim' }, { name: 'h2', type: 'link', linkname: '../../etc/passwd' }]);
      await assertRefused(apply(c.target, tar), '"h"', 'outside the layer');
      assert.equal(statSync(path.join(c.outside, 'victim')).nlink, 1);
      assertNothingOutside(c, ['victim']);
    });

    it('a hard link through a symbolic link to a file outside', async () => {
      const c = newCase();
      writeFileSync(path.join(c.outside, 'victim'), 'secret');
      const tar = await makeTar([
        { name: 'l', type: 'symlink', linkname: c.outside },
        { name: 'h', type: 'link', linkname: 'l/victim', mode: 0o777 },
        { name: 'h', data: 'overwrite' },
      ]);
      await assertRefused(apply(c.target, tar), '"h"', 'symbolic link "l"');
      assert.equal(statSync(path.join(c.outside, 'victim')).nlink, 1);
      assert.equal(readFileSync(path.join(c.outside, 'victim'), 'utf8'), 'secret');
      assertNothingOutside(c, ['victim']);
    });

    it('a hard link to a symbolic link pointing outside: made, but its metadata never reaches the target', async () => {
      const c = newCase();
      writeFileSync(path.join(c.outside, 'victim'), 'secret', { mode: 0o600 });
      const before = statSync(path.join(c.outside, 'victim'));
      const tar = await makeTar([
        { name: 'l', type: 'symlink', linkname: path.join(c.outside, 'victim') },
        { name: 'h', type: 'link', linkname: 'l', mode: 0o777, mtime: new Date('2000-01-01T00:00:00Z') },
        { name: 'h', data: 'overwrite' },
      ]);
      await apply(c.target, tar);
      const after = statSync(path.join(c.outside, 'victim'));
      assert.deepEqual([after.mode, after.mtimeMs, after.nlink], [before.mode, before.mtimeMs, 1]);
      assert.equal(readFileSync(path.join(c.outside, 'victim'), 'utf8'), 'secret');
      assert.equal(readFileSync(path.join(c.target, 'h'), 'utf8'), 'overwrite');
      assertNothingOutside(c, ['victim']);
    });

    it('a whiteout of .. (which would remove the parent)', async () => {
      const c = newCase();
      for (const name of ['.wh...', 'a/.wh...', '.wh..', '.wh.']) {
        await assertRefused(apply(c.target, await makeTar([{ name }])), 'names no file');
      }
      assertNothingOutside(c);
    });

    it('a whiteout or opaque marker through a link', async () => {
      const c = newCase();
      writeFileSync(path.join(c.outside, 'victim'), 'secret');
      await assertRefused(apply(c.target, await makeTar([{ name: 'l', type: 'symlink', linkname: c.outside }, { name: 'l/.wh.victim' }])), 'symbolic link "l"');
      const d = newCase();
      await assertRefused(apply(d.target, await makeTar([{ name: 'l', type: 'symlink', linkname: d.sentinel }, { name: 'l/.wh..wh..opq' }])), 'symbolic link "l"');
      assert.equal(xattr(d.sentinel, 'trusted.overlay.opaque'), undefined);
      assert.equal(readFileSync(path.join(c.outside, 'victim'), 'utf8'), 'secret');
      assertNothingOutside(c, ['victim']);
      assertNothingOutside(d);
    });

    it('a truncated archive', async () => {
      const tar = await makeTar([{ name: 'a', data: Buffer.alloc(4096, 1) }, { name: 'b', data: 'b' }]);
      for (const cut of [1000, 700, 512 + 4096 + 100]) {
        const c = newCase();
        await assertRefused(apply(c.target, tar.subarray(0, cut)), 'unexpected end of archive');
        assertNothingOutside(c);
      }
      const c = newCase();
      await assertRefused(apply(c.target, Buffer.from('this is not a tar archive'.repeat(40))), 'invalid layer archive');
    });

    it('a header that claims 10 GiB for a tiny file', async () => {
      const c = newCase();
      const tar = await makeTar([{ name: 'big', data: 'tiny' }]);
      patchHeader(tar, 0, (block) => {
        // base-256, as tar writes sizes beyond octal
        block.fill(0, 124, 136);
        block[124] = 0x80;
        block.writeUIntBE(10 * 1024 ** 3, 136 - 6, 6);
      });
      const started = Date.now();
      await assertRefused(apply(c.target, tar), 'unexpected end of archive');
      assert.ok(Date.now() - started < 5000);
      const written = lstatSync(path.join(c.target, 'big'), { throwIfNoEntry: false });
      assert.ok(written === undefined || written.size <= tar.length, `wrote ${written?.size}`);
      assertNothingOutside(c);
    });

    it('an entry type it does not know', async () => {
      const c = newCase();
      const tar = await makeTar([{ name: 'sparse', data: 'x' }]);
      patchHeader(tar, 0, (block) => {
        block[156] = 0x53; // 'S', a GNU sparse file
      });
      await assertRefused(apply(c.target, tar), '"sparse"', 'unsupported type');
    });
  });

  it('makes layers overlayfs stacks: a whiteout hides a lower file, an opaque directory the lower directory', async () => {
    const lower = newCase();
    await apply(lower.target, await makeTar([
      { name: 'etc/passwd', data: 'root' },
      { name: 'etc/keep', data: 'keep' },
      { name: 'var/old/file', data: 'old' },
      { name: 'var/keep', data: 'keep' },
      { name: 'usr/bin/tool', mode: 0o755, data: 'tool' },
    ]));
    const upper = newCase();
    await apply(upper.target, await makeTar([
      { name: 'etc/.wh.passwd' },
      { name: 'var/.wh..wh..opq' },
      { name: 'var/new', data: 'new' },
      { name: 'usr/bin/tool-link', type: 'link', linkname: 'usr/bin/tool', mode: 0o755 },
    ]), [lower.target]);
    const merged = path.join(scratch, 'merged');
    mkdirSync(merged);
    execFileSync('mount', ['-t', 'overlay', 'overlay', '-o', `lowerdir=${upper.target}:${lower.target}`, merged]);
    try {
      assert.ok(!existsSync(path.join(merged, 'etc/passwd')));
      assert.equal(readFileSync(path.join(merged, 'etc/keep'), 'utf8'), 'keep');
      assert.deepEqual(readdirSync(path.join(merged, 'var')), ['new']);
      assert.equal(readFileSync(path.join(merged, 'usr/bin/tool-link'), 'utf8'), 'tool');
      assert.equal(statSync(path.join(merged, 'usr/bin/tool-link')).ino, statSync(path.join(merged, 'usr/bin/tool')).ino);
    } finally {
      execFileSync('umount', [merged]);
    }
  });
});

describe('cleanArchivePath', () => {
  // dockerd: filepath.Clean, then joined to the root and refused when the result climbs out
  const cases: Array<[string, string | undefined]> = [
    ['a/b', 'a/b'],
    ['./a/b/', 'a/b'],
    ['/abs/x', 'abs/x'],
    ['//a//b/./c', 'a/b/c'],
    ['/../x', 'x'],
    ['/../../', ''],
    ['a/../b', 'b'],
    ['.', ''],
    ['./', ''],
    ['', ''],
    ['..', undefined],
    ['../x', undefined],
    ['./../x', undefined],
    ['a/../../x', undefined],
    ['a/b/../../..', undefined],
    ['a\0b', undefined],
    ['..x/y', '..x/y'],
    ['x..', 'x..'],
  ];
  for (const [name, expected] of cases) {
    it(`${JSON.stringify(name)} → ${JSON.stringify(expected)}`, () => {
      assert.equal(cleanArchivePath(name), expected);
    });
  }
});
