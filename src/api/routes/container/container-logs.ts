// GET /containers/{id}/logs: the log as stdcopy frames (raw under a TTY), with dockerd 20.10's
// choices: no Content-Type at all; tail counts records of both streams, and anything but a number
// ("all", "x", a negative) means all; since and until are seconds with an optional fraction;
// timestamps=1 puts the record's time (UTC, nine digits) and a space before each record.
import { invalidParameter } from '../../../errors.js';
import { parseTimestampNanos } from '../../../lib/timestamp.js';
import { queryBool } from '../../query.js';
import type { Handler } from '../../router.js';
import { MuxWriter } from '../../streams/mux-writer.js';
import type { ContainerStreamsBackend } from './streams-backend.js';

export function containerLogs(backend: ContainerStreamsBackend): Handler {
  return async (ctx) => {
    const stdout = queryBool(ctx.query, 'stdout');
    const stderr = queryBool(ctx.query, 'stderr');
    if (!stdout && !stderr) throw invalidParameter('Bad parameters: you must choose at least one stream');
    const target = backend.logTarget(ctx.params.id);
    const sinceNs = parseTimestampNanos('since', ctx.query.get('since'));
    const untilNs = parseTimestampNanos('until', ctx.query.get('until'));
    const timestamps = queryBool(ctx.query, 'timestamps');
    const entries = backend.readLog(target, {
      stdout,
      stderr,
      sinceNs,
      untilNs,
      tail: parseTail(ctx.query.get('tail')),
      // a stopped container's log is read to its end, as dockerd
      follow: queryBool(ctx.query, 'follow') && target.running,
      ended: target.ended,
      signal: ctx.signal,
    });

    ctx.res.writeHead(200);
    ctx.res.flushHeaders();
    const out = new MuxWriter(ctx.res, { tty: target.tty });
    for await (const entry of entries) {
      await out.write(entry.stream, timestamps ? Buffer.concat([Buffer.from(`${entry.time} `), entry.data]) : entry.data);
    }
    ctx.res.end();
  };
}

/** dockerd: strconv.Atoi, and anything that is not a count of 0 or more is all. */
function parseTail(value: string | null): number | undefined {
  if (value === null || !/^[-+]?\d+$/.test(value)) return undefined;
  const n = Number(value);
  return n >= 0 && Number.isSafeInteger(n) ? n : undefined;
}
