import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { LogStreamWriter, logLine, queryEscape, type LogStreamMessage } from './log-stream-writer.js';
import { frame, MuxWriter } from './mux-writer.js';

// Captured from dockerd 20.10 (GET /services/web/logs?stdout=1&stderr=1&details=1&timestamps=1&tail=1
// on a one-node swarm): one stderr frame.
const REFERENCE_FRAME = Buffer.from(
  '02000000000000c1323032362d31312d32365431313a32333a32322e3539333238333034355a20636f6d2e646f636b65722e737761726d2e6e6f64652e69643d737177366c6232686368796e7a346a776c7473763431706c6e2c636f6d2e646f636b65722e737761726d2e736572766963652e69643d387a35703862757872663530776b6c63306c7a71637a6164392c636f6d2e646f636b65722e737761726d2e7461736b2e69643d6b30686b7230383435676c3432796d37786b6778346b7167782065727220380a',
  'hex',
);

const message: LogStreamMessage = {
  stream: 'stderr',
  timeNs: BigInt(Date.UTC(2026, 10, 26, 11, 23, 22)) * 1_000_000n + 593_283_045n,
  // in no order: the writer sorts them
  attrs: { 'com.docker.swarm.task.id': 'k0hkr0845gl42ym7xkgx4kqgx', 'com.docker.swarm.node.id': 'sqw6lb2hchynz4jwltsv41pln', 'com.docker.swarm.service.id': '8z5p8buxrf50wklc0lzqczad9' },
  data: Buffer.from('err 8\n'),
};

async function written(tty: boolean, write: (w: LogStreamWriter) => Promise<void>, opts = { details: true, timestamps: true }): Promise<Buffer> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  await write(new LogStreamWriter(new MuxWriter(out, { tty }), opts));
  return Buffer.concat(chunks);
}

describe('logLine', () => {
  it("is dockerd's time, details and line, byte for byte", () => {
    assert.deepEqual(frame('stderr', logLine(message, { details: true, timestamps: true })), REFERENCE_FRAME);
  });

  it('leaves out what was not asked for', () => {
    assert.equal(logLine(message, { details: false, timestamps: false }).toString(), 'err 8\n');
    assert.equal(logLine(message, { details: false, timestamps: true }).toString(), '2026-11-26T11:23:22.593283045Z err 8\n');
    assert.match(logLine(message, { details: true, timestamps: false }).toString(), /^com\.docker\.swarm\.node\.id=sqw6lb2hchynz4jwltsv41pln,com\.docker\.swarm\.service\.id=\w+,com\.docker\.swarm\.task\.id=\w+ err 8\n$/);
  });

  it('escapes keys and values as url.QueryEscape', () => {
    const line = logLine({ ...message, attrs: { 'b key': 'x/y=z&w', a: 'é~_.-' } }, { details: true, timestamps: false });
    assert.equal(line.toString(), 'a=%C3%A9~_.-,b+key=x%2Fy%3Dz%26w err 8\n');
  });
});

describe('queryEscape', () => {
  it("keeps Go's unreserved bytes, a space as +, the rest as %XX", () => {
    assert.equal(queryEscape("a b/c?d=e&f+g~h_i.j-k!*'()"), 'a+b%2Fc%3Fd%3De%26f%2Bg~h_i.j-k%21%2A%27%28%29');
    assert.equal(queryEscape(''), '');
  });
});

describe('LogStreamWriter', () => {
  it('sends each message in a frame of its own', async () => {
    const bytes = await written(false, async (w) => {
      await w.write(message);
      await w.write({ ...message, stream: 'stdout', data: Buffer.from('out 8\n') });
    });
    assert.deepEqual(bytes.subarray(0, REFERENCE_FRAME.length), REFERENCE_FRAME);
    const second = bytes.subarray(REFERENCE_FRAME.length);
    assert.equal(second[0], 1);
    assert.equal(second.readUInt32BE(4), second.length - 8);
    assert.match(second.subarray(8).toString(), / out 8\n$/);
  });

  it("puts an error on stdcopy's system-error stream, in dockerd's words", async () => {
    // dockerd 20.10's frame for a task that was never scheduled (GET /tasks/<id>/logs?stdout=1)
    const reason = 'rpc error: code = Unknown desc = warning: incomplete log stream. some logs could not be retrieved for the following reasons: task 0chypa82xl44c2p9n93ovtn59 has not been scheduled';
    const bytes = await written(false, (w) => w.error(reason));
    assert.deepEqual(bytes.subarray(0, 8), Buffer.from('03000000000000c8', 'hex'));
    assert.equal(bytes.subarray(8).toString(), `Error grabbing logs: ${reason}\n`);
  });

  it('writes raw under a TTY', async () => {
    const bytes = await written(true, (w) => w.write({ ...message, stream: 'stdout', data: Buffer.from('tty-out\r\n') }), { details: false, timestamps: false });
    assert.equal(bytes.toString(), 'tty-out\r\n');
  });
});
