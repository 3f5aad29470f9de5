// POST /exec/{id}/start. Detached, it answers 200 once the process runs. Attached, it takes the
// connection (upgraded or plain, with the JSON body ahead of stdin on the socket) and streams: raw
// when the start asks for a TTY, multiplexed frames otherwise (dockerd decides by the start's Tty,
// not the instance's). An unknown instance, one that ran, or a container that stopped are
// statuses; a process that cannot start is reported in-band after the head, as dockerd writes it
// ("...\r\n" on stdout), and inspect then shows its exit code.
import { EngineError, invalidParameter } from '../../../errors.js';
import { matchGoFields } from '../../../lib/go-json-fields.js';
import { hijack, readHijackBody } from '../../hijack.js';
import type { Handler } from '../../router.js';
import { MuxWriter } from '../../streams/mux-writer.js';
import type { ExecBackend } from './backend.js';

const MAX_BODY_BYTES = 64 * 1024;

export function execStart(backend: ExecBackend): Handler {
  return async (ctx) => {
    const { detach, tty } = parseStartBody(await readHijackBody(ctx, MAX_BODY_BYTES));
    if (detach) {
      await backend.startDetached(ctx.params.id);
      ctx.res.writeHead(200, { 'Content-Length': 0 }).end();
      return;
    }
    const session = backend.start(ctx.params.id);
    const stream = hijack(ctx);
    const out = new MuxWriter(stream.output, { tty });
    try {
      await session.run({ out, input: stream.input, signal: ctx.signal });
    } catch (err) {
      await out.write('stdout', Buffer.from(`${(err as Error).message}\r\n`)).catch(() => {});
      // a process that could not start is an answer; anything else is the daemon's failure, to be logged
      if (!(err instanceof EngineError)) {
        stream.end();
        throw err;
      }
    }
    stream.end();
  };
}

function parseStartBody(raw: Buffer): { detach: boolean; tty: boolean } {
  if (raw.length === 0) return { detach: false, tty: false };
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw invalidParameter(`invalid JSON: ${(err as Error).message}`);
  }
  if (body === null) return { detach: false, tty: false };
  if (typeof body !== 'object' || Array.isArray(body)) throw invalidParameter('invalid JSON: the body is not an object');
  const { Detach, Tty } = matchGoFields(body, ['Detach', 'Tty']) as { Detach?: unknown; Tty?: unknown };
  for (const [name, v] of Object.entries({ Detach, Tty })) {
    if (v !== undefined && v !== null && typeof v !== 'boolean') throw invalidParameter(`json: cannot unmarshal ${typeof v} into Go struct field ExecStartCheck.${name} of type bool`);
  }
  return { detach: Detach === true, tty: Tty === true };
}
