// What is mounted where in berthd's mount namespace, from /proc/self/mountinfo.
import { readFile } from 'node:fs/promises';

/** Whether dir (an absolute path without symlinks) is a mount point: mountinfo's fifth field, octal escapes decoded. */
export async function isMountPoint(dir: string): Promise<boolean> {
  const info = await readFile('/proc/self/mountinfo', 'utf8');
  return info.split('\n').some((line) => {
    const field = line.split(' ')[4];
    return field !== undefined && field.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8))) === dir;
  });
}
