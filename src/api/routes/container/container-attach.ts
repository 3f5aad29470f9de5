// POST /containers/{id}/attach: the raw stream over a hijacked connection (multiplexed unless the
// container has a TTY). Bad detach keys and an unknown or paused container are statuses; after the
// head, a failure goes in-band as dockerd's "Error attaching: ..." line.
import { queryBool } from '../../query.js';
import { hijack } from '../../hijack.js';
import type { Handler } from '../../router.js';
import { MuxWriter } from '../../streams/mux-writer.js';
import type { ContainerStreamsBackend } from './streams-backend.js';

export function containerAttach(backend: ContainerStreamsBackend): Handler {
  return async (ctx) => {
    const session = backend.attach(ctx.params.id, {
      stdin: queryBool(ctx.query, 'stdin'),
      stdout: queryBool(ctx.query, 'stdout'),
      stderr: queryBool(ctx.query, 'stderr'),
      stream: queryBool(ctx.query, 'stream'),
      logs: queryBool(ctx.query, 'logs'),
      detachKeys: ctx.query.get('detachKeys') ?? undefined,
    });
    const stream = hijack(ctx);
    const out = new MuxWriter(stream.output, { tty: session.tty });
    try {
      await session.run({ out, input: stream.input, signal: ctx.signal });
    } catch (err) {
      await out.write('stdout', Buffer.from(`Error attaching: ${(err as Error).message}\n`)).catch(() => {});
      stream.end();
      await stream.closed;
      throw err;
    }
    stream.end();
  };
}
