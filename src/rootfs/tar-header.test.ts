import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { extract, type Header } from 'tar-stream';
import { toBytePath } from './byte-path.js';
import { encodeTarHeader, tarEnd, tarPadding, type TarEntryHeader } from './tar-header.js';

const base: Omit<TarEntryHeader, 'name'> = { type: 'file', mode: 0o100644, uid: 0, gid: 0, size: 0, mtime: 1614834367 };

function archive(entries: Array<TarEntryHeader & { data?: string }>): Buffer {
  const parts: Buffer[] = [];
  for (const { data, ...entry } of entries) {
    const body = Buffer.from(data ?? '');
    parts.push(encodeTarHeader({ ...entry, size: body.length }), body, tarPadding(body.length));
  }
  parts.push(tarEnd());
  return Buffer.concat(parts);
}

type Read = Header & { pax: Record<string, string> | null; data: string };

async function read(tar: Buffer): Promise<Read[]> {
  const entries: Read[] = [];
  const ex = extract();
  const done = new Promise<void>((resolve, reject) => {
    ex.on('finish', resolve);
    ex.on('error', reject);
  });
  ex.on('entry', (header, stream, next) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
    stream.on('end', () => {
      entries.push({ ...(header as Read), data: Buffer.concat(chunks).toString() });
      next();
    });
  });
  ex.end(tar);
  await done;
  return entries;
}

/** The records of the first extended header, each checked to be as long as it says. */
function paxRecords(tar: Buffer): Buffer[] {
  assert.equal(String.fromCharCode(tar[156]), 'x');
  const size = parseInt(tar.subarray(124, 136).toString('latin1'), 8);
  let data = tar.subarray(512, 512 + size);
  const records: Buffer[] = [];
  while (data.length > 0) {
    const space = data.indexOf(0x20);
    const length = Number(data.subarray(0, space).toString('latin1'));
    assert.equal(data[length - 1], 0x0a, 'a record ends where its length says');
    records.push(data.subarray(space + 1, length - 1));
    data = data.subarray(length);
  }
  return records;
}

describe('encodeTarHeader', () => {
  it('writes USTAR alone when everything fits, a long ASCII path split into prefix and name', async () => {
    const long = `${'dir/'.repeat(40)}file`;
    const tar = archive([
      { ...base, name: 'etc', type: 'directory', mode: 0o40755 },
      { ...base, name: 'etc/passwd', data: 'root\n', uid: 1000, gid: 100 },
      { ...base, name: long, data: 'deep' },
      { ...base, name: 'bin/sh', type: 'symlink', linkname: 'busybox' },
      { ...base, name: 'bin/sh2', type: 'link', linkname: 'etc/passwd' },
      { ...base, name: 'dev/null', type: 'character-device', mode: 0o20666, devmajor: 1, devminor: 3 },
      { ...base, name: 'fifo', type: 'fifo', mode: 0o10600 },
    ]);
    assert.equal(tar.indexOf('PaxHeaders'), -1, 'no extended header');
    const entries = await read(tar);
    assert.deepEqual(
      entries.map((e) => [e.name, e.type, (e.mode ?? 0) & 0o7777, e.uid, e.gid, e.linkname ?? null, e.data]),
      [
        ['etc/', 'directory', 0o755, 0, 0, null, ''],
        ['etc/passwd', 'file', 0o644, 1000, 100, null, 'root\n'],
        [long, 'file', 0o644, 0, 0, null, 'deep'],
        ['bin/sh', 'symlink', 0o644, 0, 0, 'busybox', ''],
        ['bin/sh2', 'link', 0o644, 0, 0, 'etc/passwd', ''],
        ['dev/null', 'character-device', 0o666, 0, 0, null, ''],
        ['fifo', 'fifo', 0o600, 0, 0, null, ''],
      ],
    );
    assert.equal(entries[5].devmajor, 1);
    assert.equal(entries[5].devminor, 3);
    assert.equal(entries[1].mtime?.getTime(), 1614834367000);
    const listing = execFileSync('tar', ['-tvf', '-', '--numeric-owner'], { input: tar, encoding: 'utf8' });
    assert.match(listing, /^crw-rw-rw- 0\/0\s+1,\s*3 .* dev\/null$/m);
    assert.ok(listing.includes(long));
  });

  it('carries what USTAR cannot in PAX records: long or non-ASCII names, large owners, times out of range, binary attributes', async () => {
    const capability = Buffer.from('0100000200200000000000000000000000000000', 'hex');
    const longComponent = 'x'.repeat(120);
    const nonUtf8 = `caf${String.fromCharCode(0xe9)}`;
    const tar = archive([
      { ...base, name: `a/${longComponent}`, data: 'long' },
      { ...base, name: toBytePath('café/naïve'), data: 'utf8' },
      { ...base, name: nonUtf8 },
      { ...base, name: 'link', type: 'symlink', linkname: `${'t/'.repeat(60)}target` },
      { ...base, name: 'owner', uid: 3_000_000, gid: 2_097_152 },
      { ...base, name: 'old', mtime: -86400 },
      { ...base, name: 'ping', xattrs: [['security.capability', capability], ['user.a', Buffer.from('text')]] },
    ]);
    const entries = await read(tar);
    assert.deepEqual(
      entries.map((e) => e.name),
      [`a/${longComponent}`, 'café/naïve', 'caf\uFFFD', 'link', 'owner', 'old', 'ping'],
    );
    assert.equal(entries[3].linkname, `${'t/'.repeat(60)}target`);
    assert.deepEqual([entries[4].pax?.uid, entries[4].pax?.gid], ['3000000', '2097152']);
    assert.equal(entries[5].pax?.mtime, '-86400');
    assert.deepEqual(Object.keys(entries[6].pax ?? {}), ['SCHILY.xattr.security.capability', 'SCHILY.xattr.user.a']);
    // the raw bytes, never re-encoded as text
    assert.ok(tar.includes(Buffer.concat([Buffer.from(' SCHILY.xattr.security.capability='), capability, Buffer.from('\n')])));
    assert.ok(tar.includes(Buffer.from([...Buffer.from(' path=caf'), 0xe9, 0x0a])));
    const listing = execFileSync('tar', ['-tvf', '-', '--numeric-owner'], { input: tar, encoding: 'latin1' });
    assert.match(listing, /3000000\/2097152 .* owner$/m);
    assert.match(listing, new RegExp(`a/${longComponent}$`, 'm'));
  });

  it('counts a PAX record\'s length, its own digits included, across a change in digit count', () => {
    for (let n = 80; n < 1010; n++) {
      const value = 'v'.repeat(n);
      const records = paxRecords(encodeTarHeader({ ...base, name: 'f', xattrs: [['user.x', Buffer.from(value)]] }));
      assert.deepEqual(records.map((r) => r.toString()), [`SCHILY.xattr.user.x=${value}`]);
    }
  });

  it('writes a size beyond USTAR\'s 8 GiB in a PAX record', () => {
    const records = paxRecords(encodeTarHeader({ ...base, name: 'big', size: 9_000_000_000 }));
    assert.deepEqual(records.map((r) => r.toString()), ['size=9000000000']);
  });
});
