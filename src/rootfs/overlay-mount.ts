// Overlay mounts through mount(8) and umount(8) (Node has no mount API), and the mount table as
// /proc/self/mountinfo shows it. mount(2) copies its option string into one page, NUL included:
// options longer than a page less one byte cannot be given (dockerd's overlay2 Get checks the same).
import { readFile } from 'node:fs/promises';
import { EngineError } from '../errors.js';
import { pageSizeBytes } from '../lib/page-size.js';
import { CommandError, runCommand } from '../runtime/child-process.js';
import { toBytePath, type BytePath } from './byte-path.js';

/** mount(8) and umount(8) speak English: their messages are matched ("busy") */
const C_LOCALE = { ...process.env, LC_ALL: 'C' };

/**
 * Options berth always gives. Its changes and its commits read the upper directory alone, which
 * holds everything changed only while the kernel neither redirects renamed directories nor copies
 * up metadata without data; index=off as dockerd, so that a remount never checks file handles.
 */
const FIXED_OPTIONS = 'index=off,redirect_dir=off,metacopy=off';

export interface OverlayLayout {
  /** the layers' directories, topmost first */
  lowerDirs: string[];
  /** with its workdir; none for a read-only overlay of the lower layers alone */
  upper?: { upperDir: string; workDir: string };
}

export function overlayOptions(layout: OverlayLayout): string {
  const lower = `${FIXED_OPTIONS},lowerdir=${layout.lowerDirs.join(':')}`;
  return layout.upper ? `${lower},upperdir=${layout.upper.upperDir},workdir=${layout.upper.workDir}` : lower;
}

/** Whether overlayfs can take the path in its options as it is (it splits them at ',' and ':'). */
export function isPlainOptionPath(path: string): boolean {
  return !/[,:\\]/.test(path);
}

/** The longest option string mount(2) takes: a page, less its terminating NUL. */
export function mountOptionsLimit(): number {
  return pageSizeBytes() - 1;
}

/** Mounts an overlay on `target`; relative paths in `options` and `target` are taken from `cwd`. */
export async function mountOverlay(options: string, target: string, cwd: string): Promise<void> {
  try {
    await runCommand('mount', ['-t', 'overlay', '-o', options, 'overlay', target], { cwd, env: C_LOCALE });
  } catch (err) {
    throw new EngineError('system', `cannot mount the overlay on ${target}: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * Unmounts `target`. A mount still in use (EBUSY: an open file, a process's working directory)
 * is detached instead (umount -l), and the kernel finishes when the last user goes: 'detached'.
 */
export async function unmountPath(target: string): Promise<'unmounted' | 'detached'> {
  try {
    await runCommand('umount', [target], { cwd: '/', env: C_LOCALE });
    return 'unmounted';
  } catch (err) {
    if (!(err instanceof CommandError && /busy/i.test(err.stderr))) throw new EngineError('system', `cannot unmount ${target}: ${(err as Error).message}`, { cause: err });
  }
  try {
    await runCommand('umount', ['-l', target], { cwd: '/', env: C_LOCALE });
    return 'detached';
  } catch (err) {
    throw new EngineError('system', `cannot unmount ${target}: ${(err as Error).message}`, { cause: err });
  }
}

/** How many mounts sit on `target` (an absolute path, symbolic links resolved) in this mount namespace. */
export async function mountCount(target: string): Promise<number> {
  const wanted = toBytePath(target);
  return (await mountPoints()).filter((point) => point === wanted).length;
}

/**
 * The mount points of /proc/self/mountinfo as byte paths, octal escapes (\040 for a space...)
 * undone. Read in the thread pool: with many containers the table is long, and the kernel makes
 * it under the lock that mounts and unmounts take, so a read can wait milliseconds.
 */
export async function mountPoints(): Promise<BytePath[]> {
  const points: BytePath[] = [];
  for (const line of (await readFile('/proc/self/mountinfo', 'latin1')).split('\n')) {
    // mount ID, parent ID, major:minor, root, mount point, ...
    const point = line.split(' ')[4];
    if (point !== undefined) points.push(point.replace(/\\([0-7]{3})/g, (_m, octal: string) => String.fromCharCode(parseInt(octal, 8))));
  }
  return points;
}
