// The build context of POST /build for the classic builder, as dockerd 20.10 makes it
// (builder/remotecontext/detect.go, archive.go): the request's body, or the `remote` URL (a tar or
// a lone Dockerfile over http(s), or a git repository), extracted into a directory of its own, with
// the checksum of each of its files for the build cache; then the Dockerfile read from it.
//
// The archive is extracted as dockerd does it, chrooted in the context's directory: a name with `..`
// or a leading `/` stays inside, a symbolic link may point anywhere (it is only ever resolved inside
// the context), a hard link must name a file inside, device nodes are made.
//
// .dockerignore: the daemon takes out only .dockerignore itself and the Dockerfile, and only when
// .dockerignore's patterns match them; the clients leave out the other files it names before they
// send the context (the CLI's Dockerfile from stdin, `.dockerfile.<random>`, is sent in the archive
// and named in .dockerignore, so it goes the same way).
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { EngineError, invalidParameter } from '../../errors.js';
import { extractArchive } from '../../container/archive/extract-archive.js';
import { decompressArchive } from './archive-compression.js';
import { CopySource } from './copy-source.js';
import { readDockerignore } from './dockerignore.js';
import { cloneGitContext } from './git-context.js';
import { matchesPatterns } from './pattern-matcher.js';
import { downloadRemoteContext } from './remote-context.js';
import { isGitURL, isURL } from './remote-url.js';
import { followSymlinkInScope } from './scoped-path.js';
import { scopedRootAt } from './scoped-root-at.js';
import { completeTarEnd } from './tar-end.js';
import { TarSums, tarFormatError } from './tarsum.js';

const DEFAULT_DOCKERFILE = 'Dockerfile';

export interface BuildContextOptions {
  /** a directory on the data root's file system; the context gets a directory of its own in it */
  stagingDir: string;
  /** the request's body: the context as a tar, plain or compressed with gzip, bzip2 or xz */
  body: Readable | undefined;
  /** the `remote` parameter */
  remote?: string;
  /** the `dockerfile` parameter: the Dockerfile's path in the context ("Dockerfile" when empty) */
  dockerfile?: string;
  /** aborts the reading and extraction of the context */
  signal?: AbortSignal;
  /** a remote context's download: dockerd shows it as progress with the id "Downloading context" and the URL as status */
  onDownloadProgress?: (currentBytes: number, totalBytes: number) => void;
}

export interface BuildContext {
  /** the context's root on the host; undefined when the build has none (a remote plain Dockerfile: dockerd's COPY then fails with "missing build context") */
  dir: string | undefined;
  /** COPY's and ADD's source; undefined when the build has no context */
  source: CopySource | undefined;
  /** the Dockerfile's path in the context as found (the lower-case fallback taken); undefined for a remote plain Dockerfile */
  dockerfileName: string | undefined;
  dockerfileText: string;
  /** the patterns of the context's .dockerignore ([] when it has none) */
  ignorePatterns: string[];
  /** removes the context's directory */
  close(): Promise<void>;
}

export async function openBuildContext(opts: BuildContextOptions): Promise<BuildContext> {
  opts.signal?.throwIfAborted();
  const holder = await mkdtemp(path.join(opts.stagingDir, 'build-context-'));
  const close = () => rm(holder, { recursive: true, force: true });
  try {
    const remote = opts.remote ?? '';
    let source: CopySource;
    if (remote === '') {
      source = await fromArchive(opts.body ?? Readable.from([]), holder, opts.signal);
    } else if (remote === 'client-session') {
      throw invalidParameter('experimental session with v1 builder is no longer supported, use builder version v2 (BuildKit) instead');
    } else if (isGitURL(remote)) {
      const checkout = path.join(holder, 'git');
      await mkdir(checkout);
      source = await CopySource.ofTree(await cloneGitContext(remote, checkout));
    } else if (isURL(remote)) {
      const download = await downloadRemoteContext(remote, { signal: opts.signal, onProgress: opts.onDownloadProgress });
      if (download.kind === 'dockerfile') return { dir: undefined, source: undefined, dockerfileName: undefined, dockerfileText: download.text, ignorePatterns: [], close };
      source = await fromArchive(download.body, holder, opts.signal);
    } else {
      throw new EngineError('system', `remoteURL (${remote}) could not be recognized as URL`);
    }
    const dockerfile = await readDockerfile(source.root, opts.dockerfile || DEFAULT_DOCKERFILE);
    const ignorePatterns = await removeDockerfile(source.root, dockerfile.name);
    return { dir: source.root, source, dockerfileName: dockerfile.name, dockerfileText: dockerfile.text, ignorePatterns, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * The archive extracted into `holder`/context while its entries are checksummed, in one reading:
 * dockerd reads it through tarsum on its way to the extraction, so a bad archive is tarsum's error,
 * in Go's archive/tar words.
 */
async function fromArchive(body: Readable, holder: string, signal: AbortSignal | undefined): Promise<CopySource> {
  const root = path.join(holder, 'context');
  await mkdir(root, { mode: 0o755 });
  // the request's body stays the API's: destroyed on a failure, it would close the connection
  // before the error is answered
  const input = new PassThrough();
  body.on('error', (err) => input.destroy(err));
  body.pipe(input);
  const decompressed = await decompressArchive(input).catch((err: unknown) => {
    body.unpipe(input);
    throw err;
  });
  const tar = decompressed.pipe(completeTarEnd());
  decompressed.once('error', (err) => tar.destroy(err));
  const abort = () => tar.destroy(signal?.reason as Error);
  signal?.addEventListener('abort', abort, { once: true });
  const sums = new TarSums();
  const scoped = scopedRootAt(root);
  try {
    await extractArchive(tar, { root: scoped, dest: '/', noOverwriteDirNonDir: false, observe: (header) => sums.observe(header) });
    return new CopySource(root, sums.sums);
  } catch (err) {
    const cause = (err as Error).cause;
    throw cause instanceof Error ? tarFormatError(cause) : err;
  } finally {
    body.unpipe(input);
    signal?.removeEventListener('abort', abort);
    scoped.close();
  }
}

/** dockerd's withDockerfileFromContext: the file at `name` (links followed inside the context), "dockerfile" when "Dockerfile" is missing. */
async function readDockerfile(root: string, name: string): Promise<{ name: string; text: string }> {
  const rel = followSymlinkInScope(root, name);
  if (rel === undefined) throw new EngineError('system', `forbidden path outside the build context: ${name} ()`);
  const file = path.join(root, rel);
  let data: Buffer;
  try {
    data = await readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      const lowercase = name.toLowerCase();
      if (name === DEFAULT_DOCKERFILE && existsInContext(root, lowercase)) return readDockerfile(root, lowercase);
      throw new EngineError('system', `Cannot locate specified Dockerfile: ${name}`);
    }
    if (code === 'EISDIR') throw new EngineError('system', `unexpected error reading Dockerfile: read ${file}: is a directory`);
    throw err;
  }
  if (data.length === 0) throw invalidParameter(`the Dockerfile (${name}) cannot be empty`);
  return { name, text: data.toString('utf8') };
}

function existsInContext(root: string, name: string): boolean {
  const rel = followSymlinkInScope(root, name);
  return rel !== undefined && existsSync(path.join(root, rel));
}

/** dockerd's removeDockerfile: .dockerignore's patterns; .dockerignore and the Dockerfile removed where they match. */
async function removeDockerfile(root: string, dockerfileName: string): Promise<string[]> {
  const rel = followSymlinkInScope(root, '.dockerignore');
  if (rel === undefined) throw new EngineError('system', 'forbidden path outside the build context: .dockerignore ()');
  let content: Buffer;
  try {
    content = await readFile(path.join(root, rel));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    if (code === 'EISDIR') throw new EngineError('system', `Error reading .dockerignore: read ${path.join(root, rel)}: is a directory`);
    throw err;
  }
  const patterns = readDockerignore(content);
  for (const name of ['.dockerignore', dockerfileName]) {
    if (!matchesPatterns(name, patterns)) continue;
    // what the name resolves to goes, as with dockerd (a link's target, not the link)
    const target = followSymlinkInScope(root, name);
    // dockerd only logs a failure to remove
    if (target !== undefined && target !== '.') await rm(path.join(root, target), { recursive: true, force: true }).catch(() => undefined);
  }
  return patterns;
}

