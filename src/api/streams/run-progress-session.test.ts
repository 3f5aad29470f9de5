// Progress sessions on a real ApiServer: a failure before the head is a status code, one after it
// is dockerd's in-band error line; a failure that is no EngineError is logged as well.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { until } from '../../../test/helpers/until.js';
import { invalidParameter } from '../../errors.js';
import type { ProgressSink, SessionIo } from '../../lib/stream-session.js';
import { Router } from '../router.js';
import { ApiServer } from '../server.js';
import { runProgressSession } from './run-progress-session.js';

type Run = (io: SessionIo<ProgressSink>) => Promise<void>;

const sessions = new Map<string, { headAtOnce: boolean; run: Run }>();
const logged: Array<{ msg: string; err?: { message: string } }> = [];
let api: ApiServer;
let port: number;

before(async () => {
  const logSink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged.push(JSON.parse(chunk.toString()) as (typeof logged)[number]);
      done();
    },
  });
  api = new ApiServer(
    new Router([
      {
        operationId: 'TestProgress',
        method: 'POST',
        path: '/progress/{name}',
        handle: (ctx) => {
          const s = sessions.get(ctx.params.name) as { headAtOnce: boolean; run: Run };
          return runProgressSession(ctx, { run: s.run }, { headAtOnce: s.headAtOnce, input: ctx.req });
        },
      },
    ]),
    pino({ level: 'error' }, logSink),
  );
  const server = http.createServer();
  api.attach(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
after(() => api.close(1000));

let n = 0;
async function post(headAtOnce: boolean, run: Run, body = ''): Promise<{ status: number; body: string }> {
  const name = `s${n++}`;
  sessions.set(name, { headAtOnce, run });
  const res = await fetch(`http://127.0.0.1:${port}/progress/${name}`, { method: 'POST', body });
  return { status: res.status, body: await res.text() };
}

// dockerd's streamformatter ends each progress message with \r\n
const line = (message: unknown) => JSON.stringify(message) + '\r\n';

describe('runProgressSession', () => {
  it('runs the session with the request body as its input', async () => {
    const r = await post(false, async ({ out, input }) => {
      let bytes = 0;
      for await (const chunk of input ?? []) bytes += (chunk as Buffer).length;
      await out.status(`read ${bytes} bytes`);
    }, 'twelve bytes');
    assert.deepEqual(r, { status: 200, body: line({ status: 'read 12 bytes' }) });
  });

  it('answers a failure before the head with its status and {"message"}', async () => {
    const r = await post(false, async () => {
      throw invalidParameter('invalid image archive: neither manifest.json nor index.json found');
    });
    assert.deepEqual(r, { status: 400, body: JSON.stringify({ message: 'invalid image archive: neither manifest.json nor index.json found' }) + '\n' });
  });

  it('writes a failure after the head in-band, and ends the stream as a success would', async () => {
    const before = logged.length;
    const r = await post(true, async () => {
      throw invalidParameter('unexpected EOF');
    });
    assert.deepEqual(r, { status: 200, body: line({ errorDetail: { message: 'unexpected EOF' }, error: 'unexpected EOF' }) });
    const r2 = await post(false, async ({ out }) => {
      await out.status('Loading layer', 'l1');
      throw invalidParameter('unexpected EOF');
    });
    assert.deepEqual(r2, { status: 200, body: line({ status: 'Loading layer', id: 'l1' }) + line({ errorDetail: { message: 'unexpected EOF' }, error: 'unexpected EOF' }) });
    assert.equal(logged.length, before, 'an EngineError in-band is no error of the server');
  });

  it('writes a bug after the head in-band too, then has the server log it', async () => {
    const r = await post(true, async () => {
      throw new TypeError('x is undefined');
    });
    assert.deepEqual(r, { status: 200, body: line({ errorDetail: { message: 'x is undefined' }, error: 'x is undefined' }) });
    await until('the bug logged', () => logged.at(-1)?.err?.message, (m) => m === 'x is undefined');
  });
});
