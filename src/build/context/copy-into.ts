// One COPY or ADD source copied into a build step's root file system, as dockerd 20.10's
// performCopyForInfo (builder/dockerfile/copy.go, copy_unix.go, pkg/containerfs/archiver.go):
//  - a directory: its contents (not itself) go into the destination, made (0755, root's) if missing;
//  - ADD of a local tar (plain, gzip, bzip2, xz): extracted into the destination, owners as archived;
//  - a file: to the destination, or into it when it ends in `/` or is a directory (named as the
//    source was written, a link by its own name); missing parents are made 0755.
// Modes and times (whole seconds) are kept; hard links within a directory stay links; every file
// copied gets the instruction's owner (--chown's, or 0:0), or keeps its own for COPY --from without
// --chown. A new destination directory gets that owner too, and so do the parents made for a file
// (dockerd's MkdirAllAndChownNew); the parents of a directory stay root's.
// The destination is resolved inside the step's root (links followed there, never out of it), and
// each copy is extracted as dockerd's chrooted untar at the directory it lands in: a ScopedRoot
// opened there, so nothing it writes leaves that directory.
import { createReadStream, fchownSync, lchownSync, mkdirSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { extractArchive } from '../../container/archive/extract-archive.js';
import { pathArchive } from '../../container/archive/path-archive.js';
import { selfPath, type DirHandle, type ScopedRoot } from '../../container/archive/scoped-root.js';
import { EngineError } from '../../errors.js';
import { displayPath, fsPath, toBytePath, type BytePath } from '../../rootfs/byte-path.js';
import { decompressArchive } from './archive-compression.js';
import type { Owner } from './chown-spec.js';
import type { CopyInfo } from './copy-sources.js';
import { goClean } from './go-path.js';
import { isTarArchive } from './is-tar-archive.js';
import { followSymlinkInScope } from './scoped-path.js';
import { scopedRootAt } from './scoped-root-at.js';
import { wrapError } from './wrap-error.js';

export interface CopyIntoOptions {
  /** the build step's root file system */
  root: ScopedRoot;
  /** the destination, absolute in the step's root (the builder joins a relative one to WORKDIR, keeping a trailing `/`) */
  dest: string;
  /** the owner of what is copied: --chown's, else 0:0; undefined keeps the sources' owners (COPY --from without --chown) */
  owner: Owner | undefined;
  /** ADD: a local tar is extracted rather than copied */
  decompress: boolean;
}

const ROOT_OWNER: Owner = { uid: 0, gid: 0 };

export async function copyInfoInto(info: CopyInfo, opts: CopyIntoOptions): Promise<void> {
  const srcRel = followSymlinkInScope(info.source.root, info.path);
  if (srcRel === undefined) throw new EngineError('system', `forbidden path outside the build context: ${info.path} ()`);
  const srcFile = path.join(info.source.root, srcRel);
  const srcStats = await stat(srcFile).catch(() => {
    throw new EngineError('system', `source path not found: stat ${info.path}: no such file or directory`);
  });
  // the root's paths are byte strings (names need not be UTF-8); the instruction's are text
  const dest = resolveDest(opts.root, toBytePath(opts.dest));
  if (srcStats.isDirectory()) {
    await wrap('failed to copy directory', async () => {
      const { dir, created } = ensureDir(opts.root, dest.path, ROOT_OWNER);
      try {
        if (created && opts.owner !== undefined) fchownSync(dir.fd, opts.owner.uid, opts.owner.gid);
        await extractInto(dir, () => sourceArchive(info, srcRel, undefined), opts.owner);
      } finally {
        opts.root.release([dir]);
      }
    });
    return;
  }
  if (opts.decompress && !info.noDecompress && (await isTarArchive(srcFile))) {
    const { dir } = ensureDir(opts.root, dest.path, ROOT_OWNER);
    try {
      await extractInto(dir, () => decompressArchive(createReadStream(srcFile)), undefined);
    } finally {
      opts.root.release([dir]);
    }
    return;
  }
  const into = opts.dest.endsWith('/') || dest.isDir;
  const destFile = into ? path.posix.join(dest.path, toBytePath(goBase(info.path))) : dest.path;
  const parent = path.posix.dirname(destFile);
  const made = () => ensureDir(opts.root, parent, opts.owner ?? ROOT_OWNER);
  const { dir } = opts.owner === undefined ? made() : await wrap('failed to create new directory', async () => made());
  try {
    await wrap('failed to copy file', () => extractInto(dir, () => sourceArchive(info, srcRel, path.posix.basename(destFile)), opts.owner));
  } finally {
    opts.root.release([dir]);
  }
}

/** The destination resolved as FollowSymlinkInScope resolves it: links followed inside the root, missing components as written. */
function resolveDest(root: ScopedRoot, dest: BytePath): { path: BytePath; isDir: boolean } {
  const clean = goClean(`/${dest}`);
  const res = root.resolve(clean, { followLast: true });
  try {
    if (res.found) return { path: res.entry.path, isDir: res.entry.stats.isDirectory() };
    if (res.reason === 'missing') return { path: path.posix.join(res.parents[res.parents.length - 1].path, res.name, ...res.rest), isDir: false };
    throw new EngineError('system', `lstat ${displayPath(clean)}: not a directory`);
  } finally {
    root.release(res.parents);
  }
}

/** MkdirAll inside the root: the directory, open (release it), and whether it was made; each directory made gets `owner`. */
function ensureDir(root: ScopedRoot, dir: BytePath, owner: Owner): { dir: DirHandle; created: boolean } {
  let created = false;
  for (;;) {
    const res = root.resolve(dir, { followLast: true });
    if (res.found) {
      const top = res.parents.pop() as DirHandle;
      root.release(res.parents);
      if (!res.entry.stats.isDirectory() || top.path !== res.entry.path) {
        root.release([top]);
        throw new EngineError('system', `mkdir ${displayPath(res.entry.path)}: not a directory`);
      }
      return { dir: top, created };
    }
    try {
      const top = res.parents[res.parents.length - 1];
      if (res.reason === 'not-a-directory' || top.opaque) throw new EngineError('system', `mkdir ${displayPath(dir)}: not a directory`);
      const made = fsPath(`${selfPath(top.fd)}/${res.name}`);
      mkdirSync(made, 0o755);
      lchownSync(made, owner.uid, owner.gid);
      created = res.rest.length === 0;
    } finally {
      root.release(res.parents);
    }
  }
}

/** The source as a tar (dockerd's TarWithOptions): a directory's contents, or a file named `name`. */
function sourceArchive(info: CopyInfo, srcRel: string, name: BytePath | undefined): Readable {
  const root = scopedRootAt(info.source.root);
  try {
    const res = root.resolve(toBytePath(`/${srcRel}`), { followLast: true });
    if (!res.found) {
      root.release(res.parents);
      throw new EngineError('system', `source path not found: stat ${info.path}: no such file or directory`);
    }
    return pathArchive({
      root,
      entry: res.entry,
      base: name,
      done: () => {
        root.release(res.parents);
        root.close();
      },
    });
  } catch (err) {
    root.close();
    throw err;
  }
}

/** The tar extracted as if chrooted at `dir` (dockerd's chrootarchive.Untar). */
async function extractInto(dir: DirHandle, open: () => Readable | Promise<Readable>, owner: Owner | undefined): Promise<void> {
  const root = scopedRootAt(selfPath(dir.fd));
  try {
    const tar = await open();
    try {
      await extractArchive(tar, { root, dest: '/', noOverwriteDirNonDir: false, owner });
    } finally {
      tar.destroy();
    }
  } finally {
    root.close();
  }
}

async function wrap<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw wrapError(what, err);
  }
}

/** Go's filepath.Base. */
function goBase(p: string): string {
  const trimmed = p.replace(/\/+$/, '');
  if (trimmed === '') return p === '' ? '.' : '/';
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}
