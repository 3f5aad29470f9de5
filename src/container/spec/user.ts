// The container's user, resolved as runc's libcontainer/user does for dockerd's getUser (v20.10
// daemon/oci_linux.go): Config.User (name, uid, name:group, uid:gid; empty is root) and GroupAdd
// against the /etc/passwd and /etc/group of the container's own root filesystem, read through
// resolveInRoot so that a link in the image never reads a host file. Errors keep runc's words.
//
// HOME: Docker adds none to the environment; runc sets it from the same passwd (or /) when the
// process's env lacks it.
import { readFileSync } from 'node:fs';
import { EngineError } from '../../errors.js';
import { resolveInRoot } from './in-root-path.js';

const MAX_ID = 2 ** 31 - 1;

export interface ContainerUser {
  uid: number;
  gid: number;
  /** the primary gid, the groups listing the user by name, then GroupAdd's (Docker 20.10.24+ order) */
  additionalGids: number[];
  /** from passwd; '' when the user has no entry */
  home: string;
}

interface PasswdEntry {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

interface GroupEntry {
  name: string;
  gid: number;
  members: string[];
}

/** A failed lookup: dockerd answers start with 500 and runc's message. */
function userError(message: string): EngineError {
  return new EngineError('system', message);
}

/** Config.User and HostConfig.GroupAdd resolved in the root filesystem at rootfs. */
export function resolveUser(rootfs: string, user: string | undefined, groupAdd: readonly string[] | null | undefined = []): ContainerUser {
  const passwd = readEntries(rootfs, '/etc/passwd', parsePasswdLine);
  const group = readEntries(rootfs, '/etc/group', parseGroupLine);
  const spec = user ?? '';
  const colon = spec.indexOf(':');
  const userArg = colon < 0 ? spec : spec.slice(0, colon);
  const groupArg = colon < 0 ? '' : spec.slice(colon + 1);
  const uidArg = goAtoi(userArg);
  const gidArg = goAtoi(groupArg);

  let uid = 0;
  let gid = 0;
  let home = '';
  const match = passwd?.find((u) => (userArg === '' ? u.uid === 0 : uidArg !== undefined ? u.uid === uidArg : u.name === userArg));
  let matchedName = '';
  if (match) {
    ({ uid, gid, home } = match);
    matchedName = match.name;
  } else if (userArg !== '') {
    if (uidArg === undefined) throw userError(`unable to find user ${userArg}: no matching entries in passwd file`);
    uid = checkedId(uidArg);
  }

  let supplementary: number[] = [];
  if (groupArg !== '' || matchedName !== '') {
    const groups = (group ?? []).filter((g) =>
      groupArg === '' ? g.members.includes(matchedName) : gidArg !== undefined ? g.gid === gidArg : g.name === groupArg,
    );
    if (groupArg !== '') {
      if (groups.length > 0) gid = groups[0].gid;
      else if (gidArg === undefined) throw userError(`unable to find group ${groupArg}: no matching entries in group file`);
      else gid = checkedId(gidArg);
    } else {
      supplementary = groups.map((g) => g.gid);
    }
  }
  return { uid, gid, additionalGids: [gid, ...supplementary, ...additionalGroups(groupAdd ?? [], group)], home };
}

/** GroupAdd's names and gids as gids (runc's GetAdditionalGroups, in the order given). */
function additionalGroups(wanted: readonly string[], group: GroupEntry[] | undefined): number[] {
  const gids: number[] = [];
  for (const ag of wanted) {
    const g = (group ?? []).find((e) => e.name === ag || String(e.gid) === ag);
    if (g && !gids.includes(g.gid)) {
      gids.push(g.gid);
      continue;
    }
    const n = goAtoi(ag);
    if (n === undefined) throw userError(`Unable to find group ${ag}: no matching entries in group file`);
    const id = checkedId(n);
    if (!gids.includes(id)) gids.push(id);
  }
  return gids;
}

function checkedId(id: number): number {
  if (id < 0 || id > MAX_ID) throw userError('uids and gids must be in range 0-2147483647');
  return id;
}

/** The file's entries; undefined when the image has no such file (then names cannot match, numbers still can). */
function readEntries<T>(rootfs: string, file: string, parse: (fields: string[]) => T): T[] | undefined {
  let text: string;
  try {
    text = readFileSync(resolveInRoot(rootfs, file), 'utf8');
  } catch {
    return undefined;
  }
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .map((l) => parse(l.split(':')));
}

function parsePasswdLine(f: string[]): PasswdEntry {
  return { name: f[0] ?? '', uid: goAtoi(f[2] ?? '') ?? 0, gid: goAtoi(f[3] ?? '') ?? 0, home: f[5] ?? '' };
}

function parseGroupLine(f: string[]): GroupEntry {
  return { name: f[0] ?? '', gid: goAtoi(f[2] ?? '') ?? 0, members: (f[3] ?? '').split(',').filter((m) => m !== '') };
}

/** Go's strconv.Atoi: an optional sign and decimal digits only. */
function goAtoi(s: string): number | undefined {
  return /^[+-]?\d+$/.test(s) ? Number(s) : undefined;
}
