import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { frame, MuxWriter, StreamClosedError } from './mux-writer.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'berth-mux-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** A connected pair of real sockets: the writer's end and the reader's. */
async function socketPair(): Promise<{ near: net.Socket; far: net.Socket; close(): void }> {
  const sock = path.join(dir, `s${n++}`);
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(sock, r));
  const accepted = new Promise<net.Socket>((r) => server.once('connection', r));
  const far = net.connect(sock);
  const near = await accepted;
  server.close();
  return { near, far, close: () => (near.destroy(), far.destroy()) };
}

function readAll(s: net.Socket): Promise<Buffer> {
  const chunks: Buffer[] = [];
  s.on('data', (c: Buffer) => chunks.push(c));
  return new Promise((r) => s.once('end', () => r(Buffer.concat(chunks))));
}

describe('frame', () => {
  it("is stdcopy's header then the payload", () => {
    assert.deepEqual(frame('stdout', Buffer.from('hi\n')), Buffer.from([1, 0, 0, 0, 0, 0, 0, 3, 0x68, 0x69, 0x0a]));
    assert.deepEqual(frame('stderr', Buffer.alloc(0x10203, 0x61)).subarray(0, 8), Buffer.from([2, 0, 0, 0, 0, 1, 2, 3]));
    assert.deepEqual(frame('stdin', Buffer.from('x')).subarray(0, 8), Buffer.from([0, 0, 0, 0, 0, 0, 0, 1]));
  });
});

describe('MuxWriter', () => {
  it('sends each chunk as one frame, and raw bytes under a TTY', async () => {
    const p = await socketPair();
    const got = readAll(p.far);
    const w = new MuxWriter(p.near, { tty: false });
    await w.write('stdout', Buffer.from('out'));
    await w.write('stderr', Buffer.from([0xff, 0x00]));
    await w.write('stdout', Buffer.alloc(0));
    p.near.end();
    assert.deepEqual(await got, Buffer.concat([frame('stdout', Buffer.from('out')), frame('stderr', Buffer.from([0xff, 0x00]))]));

    const q = await socketPair();
    const raw = readAll(q.far);
    const t = new MuxWriter(q.near, { tty: true });
    await t.write('stdout', Buffer.from('a\r\n'));
    q.near.end();
    assert.deepEqual(await raw, Buffer.from('a\r\n'));
  });

  it('waits for the reader when the socket is full, and loses nothing', async () => {
    const p = await socketPair();
    p.far.pause();
    const w = new MuxWriter(p.near, { tty: false });
    const chunk = Buffer.alloc(256 * 1024, 0x62);
    let waited = false;
    for (let i = 0; i < 64 && !waited; i++) {
      const write = w.write('stdout', chunk);
      const state = await Promise.race([write.then(() => 'done'), new Promise((r) => setTimeout(() => r('waiting'), 50))]);
      if (state === 'waiting') {
        waited = true;
        const got = readAll(p.far);
        p.far.resume();
        await write;
        p.near.end();
        const bytes = await got;
        assert.equal(bytes.length, (i + 1) * (chunk.length + 8));
      }
    }
    assert.ok(waited, 'the writer never waited for the reader');
    p.close();
  });

  it('rejects a waiting write, and every later one, when the peer goes away', async () => {
    const p = await socketPair();
    p.far.pause();
    const w = new MuxWriter(p.near, { tty: false });
    const chunk = Buffer.alloc(1024 * 1024);
    let write: Promise<void> = Promise.resolve();
    for (let i = 0; i < 64; i++) {
      write = w.write('stdout', chunk);
      const state = await Promise.race([write.then(() => 'done'), new Promise((r) => setTimeout(() => r('waiting'), 50))]);
      if (state === 'waiting') break;
    }
    p.far.destroy();
    await assert.rejects(write, StreamClosedError);
    await assert.rejects(w.write('stdout', Buffer.from('x')), StreamClosedError);
    p.close();
  });
});
