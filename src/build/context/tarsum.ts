// The build cache's file checksums, as dockerd 20.10 computes them (moby pkg/tarsum, version 1):
// SHA-256 over a tar header's fields, each written as its name then its value (name, mode,
// uid, gid, size, typeflag, linkname, uname, gname, devmajor, devminor, then the extended
// attributes sorted by name; the time left out), followed by the file's data. uname and gname are
// always empty: tarsum blanks them when it reads an archive, and 20.10.27 never looks them up when
// it hashes a file (FileInfoHeaderNoLookups; 20.10.24 did, so its checksums of files in images
// differ). A build context's checksums come from the headers of the archive the client sent, so the
// client's names ("./a" or "a"), modes and owners count.
import { createHash, type Hash } from 'node:crypto';
import type { Header } from 'tar-stream';
import type { EntryObserver } from '../../container/archive/extract-archive.js';
import { EngineError } from '../../errors.js';
import { TYPE_FLAGS, type TarEntryType } from '../../rootfs/tar-header.js';
import { goClean } from './go-path.js';

export interface TarsumHeader {
  /** the entry's name as in the archive (a directory's ends in `/`) */
  name: string;
  /** permission bits, setuid/setgid/sticky, and the file type bits when the archive has them */
  mode: number;
  uid: number;
  gid: number;
  size: number;
  /** the tar type flag: '0' file, '1' hard link, '2' symbolic link, '5' directory... */
  typeflag: string;
  linkname: string;
  devmajor: number;
  devminor: number;
  xattrs: Array<[string, Buffer]>;
}

/** A SHA-256 with the header written; the file's data goes in next. */
export function tarsumHash(header: TarsumHeader): Hash {
  const hash = createHash('sha256');
  const fields: Array<[string, string]> = [
    ['name', header.name],
    ['mode', String(header.mode)],
    ['uid', String(header.uid)],
    ['gid', String(header.gid)],
    ['size', String(header.size)],
    ['typeflag', header.typeflag],
    ['linkname', header.linkname],
    ['uname', ''],
    ['gname', ''],
    ['devmajor', String(header.devmajor)],
    ['devminor', String(header.devminor)],
  ];
  for (const [key, value] of fields) hash.update(key + value, 'utf8');
  const xattrs = [...header.xattrs].sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  for (const [key, value] of xattrs) hash.update(Buffer.concat([Buffer.from(key), value]));
  return hash;
}

/**
 * The checksum of every entry of an archive, by its cleaned name ('.' for the root), gathered as
 * the extraction reads it (ExtractOptions.observe); when a name comes twice the first counts, as
 * with dockerd's FileInfoSums.GetFile.
 */
export class TarSums {
  readonly sums = new Map<string, string>();

  observe(header: Header): EntryObserver {
    const hash = tarsumHash(headerOf(header));
    const name = goClean(`/${header.name}`).slice(1) || '.';
    return {
      data: (chunk) => hash.update(chunk),
      end: () => {
        if (!this.sums.has(name)) this.sums.set(name, hash.digest('hex'));
      },
    };
  }
}

/** The archive reader's complaints in the words of Go's archive/tar, as dockerd's tarsum reports them. */
export function tarFormatError(err: Error): Error {
  if (err.message === 'Unexpected end of data') return new EngineError('system', 'unexpected EOF');
  if (err.message.startsWith('Invalid tar header')) return new EngineError('system', 'archive/tar: invalid tar header');
  return err;
}

function headerOf(h: Header): TarsumHeader {
  const pax = (h.pax ?? {}) as Record<string, string>;
  const xattrs: Array<[string, Buffer]> = [];
  for (const [key, value] of Object.entries(pax)) if (key.startsWith('SCHILY.xattr.')) xattrs.push([key.slice('SCHILY.xattr.'.length), Buffer.from(value)]);
  return {
    name: h.name,
    mode: h.mode,
    // Go's reader takes the owner from the extended header when it has one
    uid: pax.uid !== undefined ? Number(pax.uid) : h.uid,
    gid: pax.gid !== undefined ? Number(pax.gid) : h.gid,
    size: h.size,
    // a contiguous file ('7') is a file to Go's reader too
    typeflag: h.type === 'contiguous-file' ? '7' : (TYPE_FLAGS[h.type as TarEntryType] ?? '0'),
    linkname: h.linkname ?? '',
    devmajor: h.devmajor,
    devminor: h.devminor,
    xattrs,
  };
}
