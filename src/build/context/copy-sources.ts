// The sources of a COPY or ADD, as dockerd 20.10's copier finds them (builder/dockerfile/copy.go
// calcCopyInfo, internals.go getSourceHashFromInfos): each source relative to the source's root (a
// leading `/` or `./` dropped), a pattern (`*`, `?`, `[`) matched by Go's filepath.Match against
// every path of the tree, an http(s) URL downloaded (ADD only); each with the checksum the build
// cache keys on: `file:<hex>` for a file, `dir:<hex>` for a directory (over the sorted checksums of
// everything in it), a download's bare hex; several sources as `multi:<hex>`.
import { createHash } from 'node:crypto';
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { EngineError } from '../../errors.js';
import { globMatch } from '../../lib/glob.js';
import { copyInfoInto, type CopyIntoOptions } from './copy-into.js';
import { CopySource } from './copy-source.js';
import { downloadSource, UNNAMED_FILENAME } from './download-source.js';
import { isURL } from './remote-url.js';
import { followSymlinkInScope } from './scoped-path.js';
import { byteOrder, walkTree } from './walk-tree.js';
import { wrapError } from './wrap-error.js';

export interface CopyInfo {
  source: CopySource;
  /** the path as written (leading `/` and `./` dropped) or as a pattern matched it, relative to the source's root */
  path: string;
  /** the build cache's string for it */
  hash: string;
  /** a download: ADD copies it as it is */
  noDecompress: boolean;
}

export interface ResolveOptions {
  /** the instruction: dockerd's errors start with it; only ADD downloads URLs */
  cmdName: 'COPY' | 'ADD';
  /** the sources as written */
  sources: string[];
  /** the destination as written: a trailing `/` makes it a directory */
  dest: string;
  /** where the sources are: the build context (BuildContext.source), or for COPY --from an image's or a stage's root (new CopySource(dir)); undefined when the build has no context */
  source: CopySource | undefined;
  /** COPY --from: a missing source is not reported as missing from the build context */
  fromImage?: boolean;
  /** where ADD's downloads go (on the data root's file system) */
  stagingDir: string;
  signal?: AbortSignal;
  /** a download's progress: dockerd shows it as "Downloading" progress */
  onDownloadProgress?: (url: string, currentBytes: number, totalBytes: number) => void;
}

export class CopySources {
  private constructor(
    readonly infos: CopyInfo[],
    private readonly downloads: string[],
  ) {}

  /** The sources found, or dockerd's error ("COPY failed: ..."). close() must follow. */
  static async resolve(opts: ResolveOptions): Promise<CopySources> {
    const infos: CopyInfo[] = [];
    const downloads: string[] = [];
    const failed = (err: unknown) => wrapError(`${opts.cmdName} failed`, err);
    try {
      for (const orig of opts.sources) {
        if (isURL(orig)) infos.push(await download(orig, opts, downloads));
        else infos.push(...(await calcCopyInfo(orig, opts, true)));
      }
    } catch (err) {
      await removeAll(downloads);
      throw failed(err);
    }
    if (infos.length === 0) throw failed(new EngineError('system', 'no source files were specified'));
    if (infos.length > 1 && !opts.dest.endsWith('/')) {
      await removeAll(downloads);
      throw new EngineError('system', `When using ${opts.cmdName} with more than one source file, the destination must be a directory and end with a /`);
    }
    return new CopySources(infos, downloads);
  }

  /** dockerd's cache string for the instruction's sources: one source's own, or `multi:` over them all. */
  get cacheKey(): string {
    return this.infos.length === 1 ? this.infos[0].hash : hashStrings('multi', this.infos.map((i) => i.hash));
  }

  /** Copies every source into the step's root file system (performCopy); errors as "failed to copy files: ...". */
  async copyInto(opts: CopyIntoOptions): Promise<void> {
    for (const info of this.infos) {
      try {
        await copyInfoInto(info, opts);
      } catch (err) {
        throw wrapError('failed to copy files', err);
      }
    }
  }

  /** Removes the downloads. */
  async close(): Promise<void> {
    await removeAll(this.downloads);
  }
}

async function download(url: string, opts: ResolveOptions, downloads: string[]): Promise<CopyInfo> {
  if (opts.cmdName === 'COPY') throw new EngineError('system', "source can't be a URL for COPY");
  const { dir, filename } = await downloadSource(url, opts.stagingDir, { signal: opts.signal, onProgress: (current, total) => opts.onDownloadProgress?.(url, current, total) });
  downloads.push(dir);
  if (filename === '' && opts.dest.endsWith('/')) throw new EngineError('system', `cannot determine filename for source ${url}`);
  const source = new CopySource(dir);
  const name = filename || UNNAMED_FILENAME;
  // no file: prefix for a download, as in dockerd
  return { source, path: name, hash: await source.hash(name), noDecompress: true };
}

async function calcCopyInfo(orig: string, opts: ResolveOptions, allowWildcards: boolean): Promise<CopyInfo[]> {
  const source = opts.source;
  if (source === undefined) throw new EngineError('system', 'missing build context');
  let origPath = orig.startsWith('/') ? orig.slice(1) : orig;
  if (origPath.startsWith('./')) origPath = origPath.slice(2);
  if (allowWildcards && containsWildcards(origPath)) {
    const infos: CopyInfo[] = [];
    for (const { rel } of walkTree(source.root, '.')) {
      // a path with a `*` in its name is not a pattern again
      if (rel !== '.' && globMatch(origPath, rel)) infos.push(...(await calcCopyInfo(rel, opts, false)));
    }
    return infos;
  }
  const rel = followSymlinkInScope(source.root, origPath);
  if (rel === undefined) throw new EngineError('system', `forbidden path outside the build context: ${origPath} ()`);
  let isDir: boolean;
  try {
    isDir = (await stat(path.join(source.root, rel))).isDirectory();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    const missing = `stat ${origPath}: file does not exist`;
    throw new EngineError('system', opts.fromImage === true ? missing : `file not found in build context or excluded by .dockerignore: ${missing}`);
  }
  if (!isDir) return [{ source, path: origPath, hash: `file:${await source.hash(origPath)}`, noDecompress: false }];
  // dockerd's walkSource: the checksums of the directory and of everything in it (a failing one left out), sorted
  const sums: string[] = [];
  for (const { rel: sub } of walkTree(source.root, rel)) {
    if (sub === '.') continue;
    const sum = await source.hash(sub).catch(() => undefined);
    if (sum !== undefined) sums.push(sum);
  }
  return [{ source, path: origPath, hash: hashStrings('dir', sums.sort(byteOrder)), noDecompress: false }];
}

/** dockerd's containsWildcards: `*`, `?` or `[` not escaped by `\`. */
function containsWildcards(name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    if (name[i] === '\\') i++;
    else if (name[i] === '*' || name[i] === '?' || name[i] === '[') return true;
  }
  return false;
}

function hashStrings(prefix: string, strings: string[]): string {
  return `${prefix}:${createHash('sha256').update(strings.join(',')).digest('hex')}`;
}

async function removeAll(dirs: string[]): Promise<void> {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
}
