// Signal names as dockerd parses them (pkg/signal ParseSignal, Linux table): a positive number, or a
// name in any case with or without SIG, including RTMIN+n and RTMAX-n.
import { invalidParameter } from '../../errors.js';

const signals: Record<string, number> = {
  ABRT: 6, ALRM: 14, BUS: 7, CHLD: 17, CLD: 17, CONT: 18, FPE: 8, HUP: 1, ILL: 4, INT: 2, IO: 29, IOT: 6,
  KILL: 9, PIPE: 13, POLL: 29, PROF: 27, PWR: 30, QUIT: 3, SEGV: 11, STKFLT: 16, STOP: 19, SYS: 31, TERM: 15,
  TRAP: 5, TSTP: 20, TTIN: 21, TTOU: 22, URG: 23, USR1: 10, USR2: 12, VTALRM: 26, WINCH: 28, XCPU: 24, XFSZ: 25,
  RTMIN: 34, RTMAX: 64,
};
for (let i = 1; i <= 15; i++) {
  signals[`RTMIN+${i}`] = 34 + i;
  signals[`RTMAX-${i}`] = 64 - i;
}

/** The signal number a StopSignal names; throws dockerd's "Invalid signal: x". */
export function parseSignal(raw: string): number {
  if (/^[+-]?\d+$/.test(raw)) {
    const n = Number.parseInt(raw, 10);
    if (n === 0) throw invalidSignal(raw);
    return n;
  }
  const n = signals[raw.toUpperCase().replace(/^SIG/, '')];
  if (n === undefined) throw invalidSignal(raw);
  return n;
}

function invalidSignal(raw: string) {
  return invalidParameter(`Invalid signal: ${raw}`);
}
