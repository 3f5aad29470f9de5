// HEALTHCHECK (dispatchHealthcheck): replaces the image's, with a note when one was set; the
// comment is Go's %q of the HealthConfig pointer (durations as strings, retries as a rune).
import { formatGoDuration } from '../../../lib/go-duration.js';
import { goQuote } from '../../dockerfile/go-quote.js';
import type { HealthcheckCommand } from '../../dockerfile/instructions.js';
import type { DispatchState } from '../dispatch-state.js';
import type { StepRunner } from '../step-runner.js';
import { goQuoteList } from './cmd.js';

export async function dispatchHealthcheck(b: StepRunner, state: DispatchState, c: HealthcheckCommand): Promise<void> {
  const old = state.runConfig.Healthcheck?.Test;
  if (old && old.length > 0 && old[0] !== 'NONE') await b.output.stdout(`Note: overriding previous HEALTHCHECK: [${old.join(' ')}]\n`);
  state.runConfig.Healthcheck = { Test: [...c.test], Interval: c.intervalNs, Timeout: c.timeoutNs, StartPeriod: c.startPeriodNs, Retries: c.retries };
  const duration = (ns: number) => goQuote(formatGoDuration(ns));
  const comment = `&{${goQuoteList(c.test)} ${duration(c.intervalNs)} ${duration(c.timeoutNs)} ${duration(c.startPeriodNs)} ${goQuoteRune(c.retries)}}`;
  await b.commit(state, `HEALTHCHECK ${comment}`);
}

/** Go's %q of an integer: a quoted rune literal. */
function goQuoteRune(n: number): string {
  const ch = String.fromCodePoint(n);
  if (n >= 0x20 && n < 0x7f) return ch === "'" ? "'\\''" : ch === '\\' ? "'\\\\'" : `'${ch}'`;
  if (n < 0x100) return `'\\x${n.toString(16).padStart(2, '0')}'`;
  return `'\\u${n.toString(16).padStart(4, '0')}'`;
}
