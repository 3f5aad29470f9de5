// Persistent network namespaces as files, what `ip netns add` makes but at any path (berth keeps
// them under its exec root): a new namespace bind-mounted onto an empty file lives on without a
// process in it, and runc joins it by path (linux.namespaces [{type: 'network', path}]) as the CNI
// plugins enter it by CNI_NETNS. Loopback is brought up here, at creation, so a container with no
// network (--network none) needs no CNI call, and a CNI list need not hold the loopback plugin.
import { mkdir, open, readdir, realpath, rm, statfs } from 'node:fs/promises';
import path from 'node:path';
import { runCommand } from './child-process.js';
import { isMountPoint } from './mount-table.js';

/** statfs(2)'s f_type of a namespace file (linux/magic.h NSFS_MAGIC) */
const NSFS_MAGIC = 0x6e736673;
const NETNS_TIMEOUT_MS = 10_000;

/**
 * Makes `dir` (created if missing) a mount point with shared propagation, as `ip netns` does with
 * /run/netns: the namespaces' mounts then propagate to the mount namespaces copied from berthd's
 * later on, so an unmount here frees a namespace that a copy would otherwise keep alive. Once,
 * before the first createNetns in it (daemon start).
 */
export async function prepareNetnsDir(dir: string): Promise<{ release(): Promise<void> }> {
  await mkdir(dir, { recursive: true, mode: 0o755 });
  const bound = !(await isMountPoint(await realpath(dir)));
  await runCommand('mount', bound ? ['--bind', '--make-shared', dir, dir] : ['--make-shared', dir], { timeoutMs: NETNS_TIMEOUT_MS });
  return {
    /**
     * Unbinds the folder when no namespace is left in it (berthd's stop): a stopped berthd leaves no
     * mount of its own. The folder is the daemon's, in its exec root: a mount already there at
     * start is one an earlier berthd made and could not undo (it was killed), undone now too.
     */
    async release() {
      if ((await isMountPoint(await realpath(dir))) && (await listNetns(dir)).length === 0) await runCommand('umount', [dir], { timeoutMs: NETNS_TIMEOUT_MS });
    },
  };
}

/** A new network namespace bound to `file`, which must not exist yet, with its loopback up. */
export async function createNetns(file: string): Promise<void> {
  // unshare binds the namespace onto an existing file only; O_EXCL keeps two callers off one file
  await (await open(file, 'wx', 0o444)).close();
  try {
    // unshare binds the file before it runs ip in the namespace: one process for both
    await runCommand('unshare', [`--net=${file}`, 'ip', 'link', 'set', 'lo', 'up'], { timeoutMs: NETNS_TIMEOUT_MS });
  } catch (err) {
    await removeNetns(file);
    throw err;
  }
}

/**
 * Unmounts and deletes `file`; a missing file, or one no longer mounted, is no error. The
 * namespace itself goes with its last process: one still running in it keeps it (and its links).
 */
export async function removeNetns(file: string): Promise<void> {
  while (await isNetns(file)) {
    // detached, as `ip netns delete` does: a process with a cwd or fd there does not make it fail
    await runCommand('umount', ['--lazy', file], { timeoutMs: NETNS_TIMEOUT_MS });
  }
  await rm(file, { force: true });
}

/** Whether `file` is a namespace's mount (nsfs), not a plain or missing file. */
export async function isNetns(file: string): Promise<boolean> {
  try {
    return (await statfs(file)).type === NSFS_MAGIC;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

export interface NetnsFile {
  path: string;
  /** false for a file left behind without its namespace (berthd stopped between its steps) */
  live: boolean;
}

/** The namespace files in `dir` (none when it is missing), for the reconciliation at daemon start. */
export async function listNetns(dir: string): Promise<NetnsFile[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return Promise.all(names.sort().map(async (name) => {
    const file = path.join(dir, name);
    return { path: file, live: await isNetns(file) };
  }));
}

/**
 * `file args` run in the network namespace `netns` (through nsenter, which changes nothing else),
 * or as they are without one.
 */
export function inNetns(netns: string | undefined, file: string, args: readonly string[]): [string, string[]] {
  return netns === undefined ? [file, [...args]] : ['nsenter', [`--net=${netns}`, '--', file, ...args]];
}

/**
 * Makes a macvlan or ipvlan network's parent link when it is missing, up: `link.vid` as a VLAN of
 * `link`, or a link of the network's own: a dummy one, or where the kernel has no dummy driver a
 * veth pair (its peer, `p` for the name's first letter, up too so the link has a carrier).
 */
export async function ensureParentLink(name: string, kind: 'dummy' | 'vlan'): Promise<void> {
  const ip = (args: string[], allowExitCodes: number[] = []) => runCommand('ip', args, { timeoutMs: 10_000, allowExitCodes });
  if ((await ip(['link', 'show', name], [1])).exitCode !== 0) {
    if (kind === 'vlan') {
      const [link, vid] = name.split('.');
      await addLink(['link', 'add', 'link', link, 'name', name, 'type', 'vlan', 'id', String(Number(vid))]);
    } else if (!(await addLink(['link', 'add', name, 'type', 'dummy'], { unknownType: true }))) {
      await addLink(['link', 'add', name, 'type', 'veth', 'peer', 'name', `p${name.slice(1)}`]);
      await ip(['link', 'set', `p${name.slice(1)}`, 'up']);
    }
  }
  await ip(['link', 'set', name, 'up']);
}

/**
 * `ip link add`; false for a link type the kernel lacks when `unknownType` allows it. Two
 * attachments at once may both have found the link missing: the second's "File exists" is no error.
 */
async function addLink(args: string[], opts: { unknownType?: boolean } = {}): Promise<boolean> {
  const r = await runCommand('ip', args, { timeoutMs: 10_000, allowExitCodes: [2] });
  if (r.exitCode === 0 || r.stderr.includes('File exists')) return true;
  if (opts.unknownType && r.stderr.includes('Unknown device type')) return false;
  throw new Error(`ip ${args.join(' ')}: ${r.stderr.trim()}`);
}

/** Deletes a network link (a network's bridge, which the bridge plugin never removes); a missing one is no error. */
export async function deleteLink(name: string): Promise<void> {
  await runCommand('ip', ['link', 'del', name], { timeoutMs: 10_000, allowExitCodes: [1] });
}
