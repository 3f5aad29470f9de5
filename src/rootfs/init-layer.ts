// The init layer dockerd puts between a container's image and its own layer (moby v20.10
// daemon/initlayer/setup_unix.go): the mount points and files every container gets, made below the
// container's layer so that runc never makes them there and `docker diff` never lists them.
// dockerd makes it through an overlay mount over the image: it unlinks every non-directory on the way
// to each path, then makes what is missing. The same result is written here into the empty layer
// directory, each path looked up in the image's merged view (LowerView, whiteouts and opaque
// directories respected):
//   - a directory there stays, whatever the path was to be;
//   - anything else, or nothing, is covered by the init layer's entry: an empty file or a directory,
//     mode 0755 (dockerd's, under its umask 022), or the link /etc/mtab → /proc/mounts, owned by root;
//   - the parent directories of what is made are copied from the image's (mode and owner) as
//     overlayfs' copy-up does, or made new (0755, root) where the image has none or a non-directory.
// No whiteout is needed: a file covers whatever the image has there, and a directory hides a
// non-directory below it.
import { chmodSync, closeSync, lchownSync, mkdirSync, openSync, symlinkSync, constants } from 'node:fs';
import path from 'node:path';
import { parentsOfRel, type BytePath } from './byte-path.js';
import { LowerView } from './lower-view.js';

type InitEntry = { rel: BytePath; kind: 'dir' } | { rel: BytePath; kind: 'file' } | { rel: BytePath; kind: 'symlink'; target: string };

const INIT_ENTRIES: readonly InitEntry[] = [
  { rel: 'dev/pts', kind: 'dir' },
  { rel: 'dev/shm', kind: 'dir' },
  { rel: 'proc', kind: 'dir' },
  { rel: 'sys', kind: 'dir' },
  { rel: '.dockerenv', kind: 'file' },
  { rel: 'etc/resolv.conf', kind: 'file' },
  { rel: 'etc/hosts', kind: 'file' },
  { rel: 'etc/hostname', kind: 'file' },
  { rel: 'dev/console', kind: 'file' },
  { rel: 'etc/mtab', kind: 'symlink', target: '/proc/mounts' },
];
const MODE = 0o755;
const ROOT = { uid: 0, gid: 0 };

/** What the init layer holds over one image: the same for every container of it. */
type InitStep = { rel: BytePath; kind: 'dir'; owner: { uid: number; gid: number }; mode: number } | { rel: BytePath; kind: 'file' } | { rel: BytePath; kind: 'symlink'; target: string };

/**
 * The plans made, by the image's layer directories: layers never change, so each image's is looked
 * up once (a getfattr run and the lstats) rather than at every create. Bounded: past this many,
 * the plans are made again as needed.
 */
const plans = new Map<string, Promise<InitStep[]>>();
const MAX_PLANS = 256;

/** Fills the empty directory `initDir` as the init layer over the layers `imageLayerDirs` (topmost first). */
export async function makeInitLayer(initDir: string, imageLayerDirs: readonly string[]): Promise<void> {
  const key = imageLayerDirs.join('\0');
  let plan = plans.get(key);
  if (plan === undefined) {
    if (plans.size >= MAX_PLANS) plans.clear();
    plan = planInitLayer(imageLayerDirs);
    plans.set(key, plan);
    plan.catch(() => plans.delete(key));
  }
  const at = (rel: BytePath) => path.join(initDir, rel);
  for (const step of await plan) {
    const file = at(step.rel);
    if (step.kind === 'dir') {
      makeDir(file, step.owner, step.mode);
    } else if (step.kind === 'file') {
      closeSync(openSync(file, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, MODE));
      own(file, ROOT, MODE);
    } else {
      symlinkSync(step.target, file);
      lchownSync(file, ROOT.uid, ROOT.gid);
    }
  }
}

async function planInitLayer(imageLayerDirs: readonly string[]): Promise<InitStep[]> {
  const image = new LowerView([...imageLayerDirs]);
  await image.prefetchOpaque(new Set(INIT_ENTRIES.flatMap((e) => parentsOfRel(e.rel))));
  const steps: InitStep[] = [];
  const madeDirs = new Set<BytePath>();
  for (const entry of INIT_ENTRIES) {
    if ((await image.lookup(entry.rel))?.stats.isDirectory()) continue;
    for (const parent of parentsOfRel(entry.rel)) {
      if (madeDirs.has(parent)) continue;
      const below = (await image.lookup(parent))?.stats;
      const copied = below?.isDirectory() ? { uid: Number(below.uid), gid: Number(below.gid), mode: Number(below.mode & 0o7777n) } : undefined;
      steps.push({ rel: parent, kind: 'dir', owner: copied ?? ROOT, mode: copied?.mode ?? MODE });
      madeDirs.add(parent);
    }
    steps.push(entry.kind === 'dir' ? { rel: entry.rel, kind: 'dir', owner: ROOT, mode: MODE } : entry);
  }
  return steps;
}

function makeDir(dir: string, owner: { uid: number; gid: number }, mode: number): void {
  mkdirSync(dir);
  own(dir, owner, mode);
}

/** The owner, then the mode: the mode is exact whatever berthd's umask, and a chown cannot clear its set-ID bits. */
function own(file: string, owner: { uid: number; gid: number }, mode: number): void {
  lchownSync(file, owner.uid, owner.gid);
  chmodSync(file, mode);
}
