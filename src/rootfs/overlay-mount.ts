// Overlay mounts through mount(8) and umount(8) (Node has no mount API), and the mount table as
// /proc/self/mountinfo shows it. mount(2) copies its option string into one page, NUL included:
// options longer than a page less one byte cannot be given (dockerd's overlay2 Get checks the same).
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { EngineError } from '../errors.js';
import { toBytePath, type BytePath } from './byte-path.js';

const execFileAsync = promisify(execFile);
const COMMAND_TIMEOUT_MS = 60_000;

/**
 * Options berth always gives. Its changes and its commits read the upper directory alone, which
 * holds everything changed only while the kernel neither redirects renamed directories nor copies
 * up metadata without data; index=off as dockerd, so that a remount never checks file handles.
 */
const FIXED_OPTIONS = 'index=off,redirect_dir=off,metacopy=off';

export interface OverlayLayout {
  /** the layers' directories, topmost first */
  lowerDirs: string[];
  upperDir: string;
  workDir: string;
}

export function overlayOptions(layout: OverlayLayout): string {
  return `${FIXED_OPTIONS},lowerdir=${layout.lowerDirs.join(':')},upperdir=${layout.upperDir},workdir=${layout.workDir}`;
}

/** Whether overlayfs can take the path in its options as it is (it splits them at ',' and ':'). */
export function isPlainOptionPath(path: string): boolean {
  return !/[,:\\]/.test(path);
}

let pageSizeBytes: number | undefined;

/** The longest option string mount(2) takes: a page, less its terminating NUL. */
export function mountOptionsLimit(): number {
  if (pageSizeBytes === undefined) {
    try {
      pageSizeBytes = Number(execFileSync('getconf', ['PAGESIZE'], { encoding: 'utf8' }).trim());
    } catch {
      pageSizeBytes = Number.NaN;
    }
    if (!Number.isInteger(pageSizeBytes) || pageSizeBytes < 4096) pageSizeBytes = 4096;
  }
  return pageSizeBytes - 1;
}

/** Mounts an overlay on `target`; relative paths in `options` and `target` are taken from `cwd`. */
export async function mountOverlay(options: string, target: string, cwd: string): Promise<void> {
  try {
    await execFileAsync('mount', ['-t', 'overlay', '-o', options, 'overlay', target], commandOptions(cwd));
  } catch (err) {
    throw new EngineError('system', `cannot mount the overlay on ${target}: ${commandError(err)}`, { cause: err });
  }
}

/**
 * Unmounts `target`. A mount still in use (EBUSY: an open file, a process's working directory)
 * is detached instead (umount -l), and the kernel finishes when the last user goes: 'detached'.
 */
export async function unmountPath(target: string): Promise<'unmounted' | 'detached'> {
  try {
    await execFileAsync('umount', [target], commandOptions('/'));
    return 'unmounted';
  } catch (err) {
    const message = commandError(err);
    if (!/busy/i.test(message)) throw new EngineError('system', `cannot unmount ${target}: ${message}`, { cause: err });
  }
  try {
    await execFileAsync('umount', ['-l', target], commandOptions('/'));
    return 'detached';
  } catch (err) {
    throw new EngineError('system', `cannot unmount ${target}: ${commandError(err)}`, { cause: err });
  }
}

/** How many mounts sit on `target` (an absolute path, symbolic links resolved) in this mount namespace. */
export function mountCount(target: string): number {
  const wanted = toBytePath(target);
  return mountPoints().filter((point) => point === wanted).length;
}

/** The mount points of /proc/self/mountinfo as byte paths, octal escapes (\040 for a space...) undone. */
export function mountPoints(): BytePath[] {
  const points: BytePath[] = [];
  for (const line of readFileSync('/proc/self/mountinfo', 'latin1').split('\n')) {
    // mount ID, parent ID, major:minor, root, mount point, ...
    const point = line.split(' ')[4];
    if (point !== undefined) points.push(point.replace(/\\([0-7]{3})/g, (_m, octal: string) => String.fromCharCode(parseInt(octal, 8))));
  }
  return points;
}

function commandOptions(cwd: string) {
  return { cwd, timeout: COMMAND_TIMEOUT_MS, env: { ...process.env, LC_ALL: 'C' } };
}

function commandError(err: unknown): string {
  const stderr = String((err as { stderr?: unknown }).stderr ?? '').trim();
  return stderr || (err as Error).message;
}
