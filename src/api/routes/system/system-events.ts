// GET /events: past events from the bus's ring when since/until ask for them, then live events
// until `until` passes, the client leaves or the daemon stops. Bad parameters are refused before
// the first byte; dockerd answers 500 for an unparsable since or filters, berth 400.
import { invalidParameter } from '../../../errors.js';
import { FilterArgs } from '../../../lib/filters.js';
import { nowNanos, parseTimestampNanos } from '../../../lib/timestamp.js';
import type { Handler } from '../../router.js';
import type { SystemBackend } from './backend.js';
import { encodeEventMessage, toEventMessage } from './to-api.js';

const MAX_TIMER_MS = 2 ** 31 - 1;

export function systemEvents(backend: SystemBackend): Handler {
  return async (ctx) => {
    const since = eventTime('since', ctx.query.get('since'));
    const until = eventTime('until', ctx.query.get('until'));
    if (until !== undefined && since !== undefined && until < since) {
      throw invalidParameter(`\`since\` time (${ctx.query.get('since')}) cannot be after \`until\` time (${ctx.query.get('until')})`);
    }
    const filters = FilterArgs.fromJson(ctx.query.get('filters'));
    const onlyPast = until !== undefined && until < nowNanos();

    const { past, live } = backend.subscribeEvents({ sinceNanos: since, untilNanos: until, filters });
    const stop = () => live.close();
    ctx.signal.addEventListener('abort', stop, { once: true });
    if (ctx.signal.aborted) stop();
    const timer = until !== undefined && !onlyPast ? closeAt(until, stop) : undefined;
    const out = ctx.ndjson();
    try {
      for (const ev of past) await out.writeLine(encodeEventMessage(toEventMessage(ev)));
      if (onlyPast) return;
      for await (const ev of live) await out.writeLine(encodeEventMessage(toEventMessage(ev)));
    } finally {
      timer?.cancel();
      ctx.signal.removeEventListener('abort', stop);
      live.close();
      out.end();
    }
  };
}

/** A since/until value; whole seconds of -1 mean "not given", as in dockerd's eventTime. */
function eventTime(name: string, value: string | null): bigint | undefined {
  if (value !== null && /^-1(\.\d+)?$/.test(value)) return undefined;
  return parseTimestampNanos(name, value);
}

/** Calls `fn` once the wall clock reaches `nanos`, however far off that is. */
function closeAt(nanos: bigint, fn: () => void): { cancel(): void } {
  let handle: NodeJS.Timeout;
  const arm = () => {
    const ms = Number((nanos - nowNanos()) / 1_000_000n);
    if (ms <= 0) return fn();
    handle = setTimeout(arm, Math.min(ms + 1, MAX_TIMER_MS));
  };
  arm();
  return { cancel: () => clearTimeout(handle) };
}
