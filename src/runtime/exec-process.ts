// The process of an exec (`docker exec`, a health check) made from the container's own spec, as
// dockerd makes it (moby v20.10.27 daemon/exec.go, exec_linux.go execSetPlatformOpt): the
// container's environment, user, working directory, capabilities, rlimits, no-new-privileges and
// AppArmor profile, unless the request gives its own. Seccomp, the cgroup and the namespaces are
// the container's whatever the process says: runc joins them.
import type { OciProcess, OciSpec } from './oci-spec.js';
import { envKey, replaceOrAppendEnv } from '../lib/env-values.js';

export interface ExecRequest {
  args: string[];
  /** entries over the container's environment: KEY=value replaces or adds, a bare KEY removes */
  env?: string[];
  /** already resolved in the container's /etc/passwd and /etc/group; the container's user by default */
  user?: { uid: number; gid: number; additionalGids?: number[] };
  /** absolute, inside the container; the container's working directory by default */
  cwd?: string;
  tty?: boolean;
  /**
   * all four capability sets, in place of the container's: `docker exec --privileged` gives every
   * capability the daemon holds (runc refuses one it does not hold)
   */
  capabilities?: readonly string[];
}

/** The process to start in the container whose config.json is containerSpec. */
export function execProcess(containerSpec: OciSpec, req: ExecRequest): OciProcess {
  const own = containerSpec.process;
  const tty = req.tty ?? false;
  const all = req.capabilities;
  const caps = all
    ? // dockerd gives a privileged exec all four sets, inheritable too
      { bounding: [...all], effective: [...all], inheritable: [...all], permitted: [...all] }
    : {
        bounding: [...own.capabilities.bounding],
        effective: [...own.capabilities.effective],
        inheritable: [...own.capabilities.inheritable],
        permitted: [...own.capabilities.permitted],
      };
  const user = req.user ?? own.user;
  const process: OciProcess = {
    terminal: tty,
    user: { uid: user.uid, gid: user.gid, ...(user.additionalGids?.length ? { additionalGids: [...user.additionalGids] } : {}) },
    args: [...req.args],
    env: replaceOrAppendEnv(termFor(own.env, own.terminal, tty), req.env ?? []),
    cwd: req.cwd || own.cwd || '/',
    capabilities: caps,
    noNewPrivileges: own.noNewPrivileges,
  };
  if (own.rlimits?.length) process.rlimits = own.rlimits.map((r) => ({ ...r }));
  if (own.apparmorProfile) process.apparmorProfile = own.apparmorProfile;
  if (own.selinuxLabel) process.selinuxLabel = own.selinuxLabel;
  return process;
}

/**
 * The container's environment with TERM as dockerd sets it for the exec's terminal: it adds
 * TERM=xterm (after PATH and HOSTNAME) for a terminal, and the container's own TERM=xterm came
 * from the container's terminal, not from its Env, so a process without one goes without it
 * (an Env that said TERM=xterm itself cannot be told apart, and goes too).
 */
function termFor(env: readonly string[], containerTty: boolean, tty: boolean): string[] {
  if (containerTty && !tty) return env.filter((e) => e !== 'TERM=xterm');
  if (!tty || env.some((e) => envKey(e) === 'TERM')) return [...env];
  const after = env.findIndex((e) => envKey(e) === 'HOSTNAME') + 1;
  return [...env.slice(0, after), 'TERM=xterm', ...env.slice(after)];
}
