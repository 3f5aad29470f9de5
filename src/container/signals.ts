// Signal names and numbers as Docker accepts them (moby pkg/signal ParseSignal): a number, or a
// name with or without SIG, in any case.
import { constants } from 'node:os';
import { invalidParameter } from '../errors.js';

const BY_NAME = constants.signals as Record<string, number>;

/** The signal's number; "Invalid signal: X" (400) for anything Linux does not have. */
export function signalNumber(signal: string): number {
  const text = signal.trim();
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    if (n >= 1 && n <= 64) return n;
    throw invalidParameter(`Invalid signal: ${signal}`);
  }
  const upper = text.toUpperCase();
  const name = upper.startsWith('SIG') ? upper : `SIG${upper}`;
  const rt = /^SIGRTMIN(?:\+(\d+))?$|^SIGRTMAX(?:-(\d+))?$/.exec(name);
  if (rt) {
    const n = rt[1] !== undefined || name.startsWith('SIGRTMIN') ? 34 + Number(rt[1] ?? 0) : 64 - Number(rt[2] ?? 0);
    if (n >= 34 && n <= 64) return n;
  }
  const n = BY_NAME[name];
  if (n === undefined) throw invalidParameter(`Invalid signal: ${signal}`);
  return n;
}
