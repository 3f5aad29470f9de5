// GET /containers/{id}/logs: the log as stdcopy frames (raw under a TTY), with dockerd 20.10's
// choices: no Content-Type at all; tail counts records of both streams, and anything but a number
// ("all", "x", a negative) means all; since and until are seconds with an optional fraction.
import { queryBool } from '../../query.js';
import type { Handler } from '../../router.js';
import { MuxWriter } from '../../streams/mux-writer.js';
import type { ContainerStreamsBackend } from './streams-backend.js';

export function containerLogs(backend: ContainerStreamsBackend): Handler {
  return async (ctx) => {
    const session = await backend.logs(ctx.params.id, {
      stdout: queryBool(ctx.query, 'stdout'),
      stderr: queryBool(ctx.query, 'stderr'),
      since: ctx.query.get('since') ?? undefined,
      until: ctx.query.get('until') ?? undefined,
      tail: parseTail(ctx.query.get('tail')),
      follow: queryBool(ctx.query, 'follow'),
      timestamps: queryBool(ctx.query, 'timestamps'),
    });
    ctx.res.writeHead(200);
    ctx.res.flushHeaders();
    await session.run({ out: new MuxWriter(ctx.res, { tty: session.tty }), signal: ctx.signal });
    ctx.res.end();
  };
}

/** dockerd: strconv.Atoi, and anything that is not a count of 0 or more is all. */
function parseTail(value: string | null): number | undefined {
  if (value === null || !/^[-+]?\d+$/.test(value)) return undefined;
  const n = Number(value);
  return n >= 0 && Number.isSafeInteger(n) ? n : undefined;
}
