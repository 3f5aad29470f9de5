// GET /events as the system area serves it: since and until are checked first (400; dockerd
// answers 500 for an unparsable one); the session then sends the past events the ring holds when
// since or until ask for them, and live ones until `until` passes, the client leaves or the daemon
// stops.
import { invalidParameter } from '../errors.js';
import type { EventBus } from '../events/event-bus.js';
import type { EngineEvent } from '../events/event.js';
import { eventMatches } from '../events/event-filter.js';
import type { FilterArgs } from '../lib/filters.js';
import type { ItemSink, StreamSession } from '../lib/stream-session.js';
import { nowNanos, parseTimestampNanos } from '../lib/timestamp.js';

const MAX_TIMER_MS = 2 ** 31 - 1;

export interface EventsRequest {
  /** as the query gives them: seconds since the epoch, with an optional fraction */
  since?: string;
  until?: string;
  filters: FilterArgs;
}

export function eventStream(bus: EventBus, req: EventsRequest): StreamSession<ItemSink<EngineEvent>> {
  const since = eventTime('since', req.since);
  const until = eventTime('until', req.until);
  if (until !== undefined && since !== undefined && until < since) {
    throw invalidParameter(`\`since\` time (${req.since}) cannot be after \`until\` time (${req.until})`);
  }
  const onlyPast = until !== undefined && until < nowNanos();
  const { filters } = req;
  const { past, live } = bus.subscribe({
    sinceNanos: since,
    untilNanos: until,
    accept: filters.size === 0 ? undefined : (ev) => eventMatches(filters, ev),
  });
  return {
    async run({ out, signal }) {
      const stop = () => live.close();
      signal.addEventListener('abort', stop, { once: true });
      if (signal.aborted) stop();
      const timer = until !== undefined && !onlyPast ? closeAt(until, stop) : undefined;
      try {
        for (const ev of past) await out.write(ev);
        if (onlyPast) return;
        for await (const ev of live) await out.write(ev);
      } finally {
        timer?.cancel();
        signal.removeEventListener('abort', stop);
        live.close();
      }
    },
  };
}

/** A since/until value; whole seconds of -1 mean "not given", as in dockerd's eventTime. */
function eventTime(name: string, value: string | undefined): bigint | undefined {
  if (value !== undefined && /^-1(\.\d+)?$/.test(value)) return undefined;
  return parseTimestampNanos(name, value ?? null);
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
