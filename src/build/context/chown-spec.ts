// COPY and ADD --chown=user[:group], resolved as dockerd 20.10's parseChownFlag: a number is taken
// as it is; a name is looked up in the step's /etc/passwd or /etc/group (read inside its root
// file system, links followed there), the first entry of that name winning; without a group, the
// user's string is the group's too ("--chown=bin" is bin:bin). Errors keep dockerd's words, with
// the container's paths where dockerd shows the host's.
import { readFileSync } from 'node:fs';
import type { ScopedRoot } from '../../container/archive/scoped-root.js';
import { EngineError } from '../../errors.js';
import { fsPath } from '../../rootfs/byte-path.js';

export interface Owner {
  uid: number;
  gid: number;
}

export function resolveChown(root: ScopedRoot, chown: string): Owner {
  try {
    const parts = chown.split(':');
    if (parts.length > 2) throw new Error(`invalid chown string format: ${chown}`);
    const [user, group = user] = parts;
    const uid = lookup(root, '/etc/passwd', user, 'user', 'uid');
    const gid = lookup(root, '/etc/group', group, 'group', 'gid');
    return { uid, gid };
  } catch (err) {
    throw new EngineError('system', `unable to convert uid/gid chown string to host mapping: ${(err as Error).message}`);
  }
}

/** The id of `name` (a number, or a name in `file`: name:password:ID:...). */
function lookup(root: ScopedRoot, file: string, name: string, what: 'user' | 'group', idName: 'uid' | 'gid'): number {
  const id = goAtoi(name);
  if (id !== undefined) return id;
  let text: string;
  try {
    text = readInRoot(root, file);
  } catch (err) {
    throw new Error(`can't find ${idName} for ${what} ${name}: ${(err as Error).message}`);
  }
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const fields = line.split(':');
    // runc's parser: an id that is no number counts as 0
    if (fields[0] === name) return goAtoi(fields[2] ?? '') ?? 0;
  }
  throw new Error(`can't find ${idName} for ${what} ${name}: no such ${what}: ${name}`);
}

function readInRoot(root: ScopedRoot, file: string): string {
  const res = root.resolve(file, { followLast: true });
  try {
    if (!res.found) throw new Error(`open ${file}: no such file or directory`);
    if (res.entry.stats.isDirectory()) throw new Error(`read ${file}: is a directory`);
    return readFileSync(fsPath(res.entry.hostPath), 'utf8');
  } finally {
    root.release(res.parents);
  }
}

/** Go's strconv.Atoi: an optional sign and decimal digits that fit 64 bits. */
function goAtoi(s: string): number | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : undefined;
}
