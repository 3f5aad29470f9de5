// Tar headers in the PAX format, as Go's archive/tar writes them for dockerd: a USTAR header, and
// before it an extended header whenever a field does not fit USTAR (a path or link target longer
// than its field or not ASCII, an owner, size or time out of octal range) or the entry has
// extended attributes (SCHILY.xattr.NAME). Names, link targets and attribute values are bytes,
// written as they are. tar-stream's pack is not used here: it writes PAX values as UTF-8 text,
// which corrupts a binary attribute (security.capability), and silently clamps large owners.
import type { BytePath } from './byte-path.js';

export const TAR_BLOCK = 512;

export type TarEntryType = 'file' | 'link' | 'symlink' | 'character-device' | 'block-device' | 'directory' | 'fifo';

export interface TarEntryHeader {
  /** the entry's path as bytes, relative, without a trailing slash */
  name: BytePath;
  type: TarEntryType;
  /** permission bits and file type bits, as Go's tar.FileInfoHeader fills them */
  mode: number;
  uid: number;
  gid: number;
  /** data bytes that follow (regular files only) */
  size: number;
  /** whole seconds since the epoch */
  mtime: number;
  /** the target of a symbolic or hard link, as bytes */
  linkname?: BytePath;
  devmajor?: number;
  devminor?: number;
  /** extended attributes, name → raw value */
  xattrs?: Array<[string, Buffer]>;
}

/** the tar type flag of each kind of entry (tar-stream's names) */
export const TYPE_FLAGS: Record<TarEntryType, string> = {
  file: '0',
  link: '1',
  symlink: '2',
  'character-device': '3',
  'block-device': '4',
  directory: '5',
  fifo: '6',
};
/** the largest value of a USTAR numeric field of `width` bytes (width - 1 octal digits) */
const maxOctal = (width: number) => 8 ** (width - 1) - 1;

/** The header blocks of one entry (the extended header and its records first, when needed). */
export function encodeTarHeader(entry: TarEntryHeader): Buffer {
  const pax: Array<[string, Buffer]> = [];
  const name = entry.type === 'directory' ? `${entry.name}/` : entry.name;
  const ustarName = splitUstarPath(name);
  if (ustarName === undefined) pax.push(['path', Buffer.from(name, 'latin1')]);
  const linkname = entry.linkname ?? '';
  if (linkname.length > 100 || !isAscii(linkname)) pax.push(['linkpath', Buffer.from(linkname, 'latin1')]);
  for (const field of ['size', 'uid', 'gid'] as const) {
    const width = field === 'size' ? 12 : 8;
    if (entry[field] > maxOctal(width)) pax.push([field, Buffer.from(String(entry[field]))]);
  }
  if (entry.mtime < 0 || entry.mtime > maxOctal(12)) pax.push(['mtime', Buffer.from(String(entry.mtime))]);
  const xattrs = [...(entry.xattrs ?? [])].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [attr, value] of xattrs) pax.push([`SCHILY.xattr.${attr}`, value]);

  const header = ustarBlock({
    name: ustarName ?? { prefix: '', name: asciiPrefix(name, 100) },
    type: TYPE_FLAGS[entry.type],
    mode: entry.mode,
    uid: entry.uid,
    gid: entry.gid,
    size: entry.size,
    mtime: entry.mtime,
    linkname: asciiPrefix(linkname, 100),
    devmajor: entry.devmajor ?? 0,
    devminor: entry.devminor ?? 0,
  });
  if (pax.length === 0) return header;
  const records = Buffer.concat(pax.map(([key, value]) => paxRecord(key, value)));
  const paxHeader = ustarBlock({
    name: { prefix: '', name: asciiPrefix(`PaxHeaders.0/${baseName(entry.name)}`, 100) },
    type: 'x',
    mode: 0o644,
    uid: 0,
    gid: 0,
    size: records.length,
    mtime: entry.mtime,
    linkname: '',
    devmajor: 0,
    devminor: 0,
  });
  return Buffer.concat([paxHeader, records, tarPadding(records.length), header]);
}

/** Zeros that complete the last block of `size` data bytes. */
export function tarPadding(size: number): Buffer {
  return Buffer.alloc((TAR_BLOCK - (size % TAR_BLOCK)) % TAR_BLOCK);
}

/** The end of an archive: two zero blocks. */
export function tarEnd(): Buffer {
  return Buffer.alloc(2 * TAR_BLOCK);
}

interface UstarFields {
  name: { prefix: string; name: string };
  type: string;
  mode: number;
  uid: number;
  gid: number;
  size: number;
  mtime: number;
  linkname: string;
  devmajor: number;
  devminor: number;
}

function ustarBlock(f: UstarFields): Buffer {
  const block = Buffer.alloc(TAR_BLOCK);
  block.write(f.name.name, 0, 100, 'latin1');
  octal(block, 100, 8, f.mode);
  octal(block, 108, 8, f.uid);
  octal(block, 116, 8, f.gid);
  octal(block, 124, 12, f.size);
  octal(block, 136, 12, f.mtime);
  block.write(f.type, 156, 1, 'latin1');
  block.write(f.linkname, 157, 100, 'latin1');
  block.write('ustar\u000000', 257, 8, 'latin1');
  octal(block, 329, 8, f.devmajor);
  octal(block, 337, 8, f.devminor);
  block.write(f.name.prefix, 345, 155, 'latin1');
  // the checksum counts its own field as spaces
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 8, 'latin1');
  return block;
}

/** A numeric field: zero-padded octal and a NUL; a value out of range (carried by PAX) is clamped. */
function octal(block: Buffer, offset: number, width: number, value: number): void {
  const clamped = Math.min(Math.max(0, Math.trunc(value)), maxOctal(width));
  block.write(`${clamped.toString(8).padStart(width - 1, '0')}\u0000`, offset, width, 'latin1');
}

/** USTAR's name (100 bytes) and prefix (155 bytes) for an ASCII path, or undefined when it needs PAX. */
function splitUstarPath(name: BytePath): { prefix: string; name: string } | undefined {
  if (!isAscii(name)) return undefined;
  if (name.length <= 100) return { prefix: '', name };
  // the split is at a slash, with a non-empty name part
  for (let at = name.indexOf('/'); at !== -1 && at <= 155; at = name.indexOf('/', at + 1)) {
    const rest = name.slice(at + 1);
    if (rest.length <= 100 && rest !== '' && rest !== '/') return { prefix: name.slice(0, at), name: rest };
  }
  return undefined;
}

/** `len key=value\n`, len counting the record's own bytes, its digits included. */
function paxRecord(key: string, value: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(` ${key}=`, 'latin1'), value, Buffer.from('\n')]);
  let length = body.length + 1;
  while (String(length).length + body.length !== length) length = String(length).length + body.length;
  return Buffer.concat([Buffer.from(String(length)), body]);
}

function isAscii(s: string): boolean {
  return /^[\x01-\x7f]*$/.test(s);
}

/** The path cut to fit a field, non-ASCII bytes replaced (readers take the PAX record instead). */
function asciiPrefix(s: string, width: number): string {
  return s.replace(/[^\x01-\x7f]/g, '_').slice(0, width);
}

function baseName(name: BytePath): string {
  return name.slice(name.lastIndexOf('/') + 1);
}
