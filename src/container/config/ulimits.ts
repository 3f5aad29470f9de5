// Ulimits checked at create, so that runc never fails at start with "error setting rlimit type 7:
// operation not permitted" (what dockerd 20.10 gives, as it checks nothing here): the names go-units
// knows, soft within hard, and hard within what the daemon itself holds unless it may raise it.
import { invalidParameter } from '../../errors.js';
import type { CreateLimits } from './create-limits.js';
import type { Ulimit } from './types.js';

/** Docker's ulimit names (go-units), plus "as", which runc applies as RLIMIT_AS. */
export const ULIMIT_NAMES = [
  'as', 'core', 'cpu', 'data', 'fsize', 'locks', 'memlock', 'msgqueue', 'nice', 'nofile', 'nproc', 'rss', 'rtprio', 'rttime', 'sigpending', 'stack',
] as const;

export function validateUlimits(ulimits: Ulimit[] | null | undefined, limits: Pick<CreateLimits, 'rlimitHard' | 'hasCapSysResource'>): void {
  for (const u of ulimits ?? []) {
    if (!(ULIMIT_NAMES as readonly string[]).includes(u.Name)) throw invalidParameter(`invalid ulimit type: ${u.Name}`);
    const soft = asLimit(u.Soft);
    const hard = asLimit(u.Hard);
    if (soft > hard) {
      throw invalidParameter(`ulimit ${u.Name}: soft limit must be less than or equal to hard limit: ${u.Soft} > ${u.Hard}`);
    }
    const daemonHard = limits.rlimitHard[u.Name] ?? Infinity;
    if (hard > daemonHard && !limits.hasCapSysResource) {
      throw invalidParameter(
        `ulimit ${u.Name}: hard limit ${u.Hard} is above the daemon's own hard limit ${daemonHard}, which it cannot raise without CAP_SYS_RESOURCE`,
      );
    }
  }
}

/** A negative limit wraps to RLIM_INFINITY in the OCI spec's uint64. */
function asLimit(n: number): number {
  return n < 0 ? Infinity : n;
}
