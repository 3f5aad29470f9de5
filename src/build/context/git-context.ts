// A build context from a git repository, fetched as dockerd 20.10 does (builder/remotecontext/git):
// `git init`, an origin, a fetch of the one ref asked for (shallow unless the server is a dumb HTTP
// one), a checkout (of the ref, else of FETCH_HEAD), submodules, then the subdirectory asked for.
// The URL's fragment is `ref:subdir`, the ref "master" by default. git runs without the system's or
// the user's configuration and may not fetch submodules from the local file system. Errors keep
// dockerd's words with git's own output.
import { statSync } from 'node:fs';
import path from 'node:path';
import { EngineError } from '../../errors.js';
import { CommandError, runCommand } from '../../runtime/child-process.js';
import { httpRequest } from './http-get.js';
import { followSymlinkInScope } from './scoped-path.js';

/** a fetch of a large repository over a slow link */
const GIT_TIMEOUT_MS = 30 * 60_000;

interface GitRepo {
  remote: string;
  ref: string;
  subdir: string;
}

/** Clones `remoteURL` into the empty directory `root`; returns the context's directory (root, or the subdirectory asked for). */
export async function cloneGitContext(remoteURL: string, root: string): Promise<string> {
  const repo = parseRemoteURL(remoteURL);
  await git(root, ['init'], (out) => `failed to init repo at ${root}: ${out}`);
  await git(root, ['remote', 'add', 'origin', repo.remote], (out) => `failed add origin repo at ${repo.remote}: ${out}`);
  const depth = (await supportsShallowClone(repo.remote)) ? ['--depth', '1'] : [];
  await git(root, ['fetch', ...depth, 'origin', '--', repo.ref], (out) => `error fetching: ${out}`);
  try {
    await git(root, ['checkout', repo.ref], (out) => `error checking out ${repo.ref}: ${out}`);
  } catch (err) {
    // not a branch: the commit just fetched
    const detached = await git(root, ['checkout', 'FETCH_HEAD'], (out) => out).then(
      () => true,
      () => false,
    );
    if (!detached) throw err;
  }
  // dockerd runs this one with the daemon's own environment and configuration
  await git(root, ['submodule', 'update', '--init', '--recursive', '--depth=1'], (out) => `error initializing submodules: ${out}`, false);
  return repo.subdir === '' ? root : subdirectory(root, repo.subdir);
}

/** dockerd's parseRemoteURL: https:// in front of a bare "github.com/..." name; the fragment's ref and subdirectory. */
function parseRemoteURL(remoteURL: string): GitRepo {
  const url = isGitTransport(remoteURL) ? remoteURL : `https://${remoteURL}`;
  const at = url.indexOf('#');
  const remote = at < 0 ? url : url.slice(0, at);
  let fragment = at < 0 ? '' : url.slice(at + 1);
  // a URL's fragment comes unescaped (git@host:repo is no URL, and keeps it as written)
  if (!url.startsWith('git@')) {
    try {
      fragment = decodeURIComponent(fragment);
    } catch {
      // left as written
    }
  }
  const colon = fragment.indexOf(':');
  const ref = (colon < 0 ? fragment : fragment.slice(0, colon)) || 'master';
  const subdir = colon < 0 ? '' : fragment.slice(colon + 1);
  if (ref.startsWith('-')) throw new EngineError('system', `invalid refspec: ${ref}`);
  return { remote, ref, subdir };
}

function isGitTransport(url: string): boolean {
  return url.startsWith('git@') || ['git', 'http', 'https', 'ssh'].includes(scheme(url));
}

/** A URL's scheme as Go's url.Parse finds it, lower-cased; '' when there is none. */
function scheme(url: string): string {
  return /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url)?.[1].toLowerCase() ?? '';
}

/** A shallow fetch needs a git server, or a smart HTTP one (it answers git-upload-pack's advertisement). */
async function supportsShallowClone(remote: string): Promise<boolean> {
  const s = scheme(remote);
  if (s !== 'http' && s !== 'https') return true;
  const serviceURL = `${remote}/info/refs?service=git-upload-pack`;
  for (const method of ['HEAD', 'GET'] as const) {
    try {
      const res = await httpRequest(method, serviceURL);
      res.resume();
      if (res.statusCode === 200) return res.headers['content-type'] === 'application/x-git-upload-pack-advertisement';
    } catch {
      // tried again with GET, then taken as a dumb server
    }
  }
  return false;
}

/** Runs git in `dir`; a failure is `describe(output)` then git's exit status, as Go's errors.Wrapf shows an exec.ExitError. */
async function git(dir: string, args: string[], describe: (output: string) => string, isolated = true): Promise<void> {
  const env = isolated
    ? // no unsafe protocols, no system or user configuration
      { ...process.env, GIT_PROTOCOL_FROM_USER: '0', GIT_CONFIG_NOSYSTEM: '1', HOME: '/dev/null', GIT_TERMINAL_PROMPT: '0' }
    : // berthd has no terminal to ask for credentials on
      { ...process.env, GIT_TERMINAL_PROMPT: '0' };
  const fullArgs = isolated ? ['-c', 'protocol.file.allow=never', ...args] : args;
  try {
    await runCommand('git', fullArgs, { cwd: dir, env, timeoutMs: GIT_TIMEOUT_MS });
  } catch (err) {
    if (!(err instanceof CommandError) || err.exitCode === null) throw err;
    throw new EngineError('system', `${describe(err.stderr)}: exit status ${err.exitCode}`);
  }
}

function subdirectory(root: string, subdir: string): string {
  const rel = followSymlinkInScope(root, subdir);
  if (rel === undefined) throw new EngineError('system', `error setting git context, ${JSON.stringify(subdir)} not within git root: evalSymlinksInScope: ${path.join(root, subdir)} is not in ${root}`);
  const dir = path.join(root, rel);
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new EngineError('system', `stat ${dir}: no such file or directory`);
  }
  if (!isDir) throw new EngineError('system', `error setting git context, not a directory: ${dir}`);
  return dir;
}
