// The hijacked connection with raw bytes on a real socket: dockerd's exact heads, stdin sent with
// the head, the request's body (by length or chunked) read or dropped but never stdin, upgraded or
// plain, the client's half-close as the end of input while output carries on, errors before and
// after the head, and shutdown cutting a live session.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { hijack, readHijackBody } from '../../../src/api/hijack.js';
import { Router } from '../../../src/api/router.js';
import { ApiServer } from '../../../src/api/server.js';
import { frame, MuxWriter } from '../../../src/api/streams/mux-writer.js';
import { notFound } from '../../../src/errors.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'berth-hijack-'));
const socketPath = path.join(dir, 'api.sock');
let api: ApiServer;
let server: http.Server;
let sessionsEnded = 0;

const router = new Router([
  {
    // echoes stdin as stdout frames; after the client's half-close, says bye and ends
    operationId: 'TestEcho',
    method: 'POST',
    path: '/echo',
    hijacks: true,
    handle: async (ctx) => {
      const stream = hijack(ctx);
      const out = new MuxWriter(stream.output, { tty: false });
      for await (const chunk of stream.input) await out.write('stdout', chunk as Buffer);
      await new Promise((r) => setTimeout(r, 50));
      await out.write('stderr', Buffer.from('bye'));
      stream.end();
      await stream.closed;
      sessionsEnded++;
    },
  },
  {
    operationId: 'TestBody',
    method: 'POST',
    path: '/body',
    hijacks: true,
    handle: async (ctx) => {
      const body = await readHijackBody(ctx, 1024);
      const stream = hijack(ctx);
      const out = new MuxWriter(stream.output, { tty: true });
      await out.write('stdout', Buffer.from(`body=${body.toString()};`));
      for await (const chunk of stream.input) await out.write('stdout', chunk as Buffer);
      stream.end();
    },
  },
  {
    operationId: 'TestForever',
    method: 'POST',
    path: '/forever',
    hijacks: true,
    handle: async (ctx) => {
      const stream = hijack(ctx);
      await stream.closed;
    },
  },
  {
    operationId: 'TestFail',
    method: 'POST',
    path: '/fail/{when}',
    hijacks: true,
    handle: async (ctx) => {
      if (ctx.params.when === 'before') throw notFound('No such container: x');
      hijack(ctx).output.write('partial');
      throw new Error('broke after the head');
    },
  },
]);

before(async () => {
  api = new ApiServer(router, pino({ level: 'silent' }));
  server = http.createServer(api.serverOptions);
  api.attach(server);
  await new Promise<void>((r) => server.listen(socketPath, r));
});

after(async () => {
  await api.close(1000);
  rmSync(dir, { recursive: true, force: true });
});

interface Conversation {
  socket: net.Socket;
  received(): Buffer;
  waitFor(test: (b: Buffer) => boolean): Promise<Buffer>;
  ended: Promise<Buffer>;
}

function open(request: string | Buffer): Conversation {
  const socket = net.connect({ path: socketPath, allowHalfOpen: true });
  let got = Buffer.alloc(0);
  const waiters: Array<() => void> = [];
  socket.on('data', (c: Buffer) => {
    got = Buffer.concat([got, c]);
    waiters.splice(0).forEach((w) => w());
  });
  const ended = new Promise<Buffer>((resolve) => socket.once('end', () => resolve(got)));
  socket.write(request);
  return {
    socket,
    received: () => got,
    ended,
    waitFor: async (test) => {
      const deadline = Date.now() + 5000;
      while (!test(got)) {
        if (Date.now() > deadline) throw new Error(`timed out; got ${JSON.stringify(got.toString('latin1'))}`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 100);
        });
      }
      return got;
    },
  };
}

const UPGRADE_HEAD = 'HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n';
const PLAIN_HEAD = 'HTTP/1.1 200 OK\r\nContent-Type: application/vnd.docker.raw-stream\r\n\r\n';

describe('hijack', () => {
  it("answers an upgrade with dockerd's head, reads stdin sent with the head, and writes on after the client's half-close", async () => {
    const c = open(`POST /v1.41/echo HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\nfirst`);
    await c.waitFor((b) => b.length >= UPGRADE_HEAD.length + 13);
    c.socket.write('second');
    await c.waitFor((b) => b.length >= UPGRADE_HEAD.length + 27);
    const before = sessionsEnded;
    c.socket.end();
    const all = await c.ended;
    assert.deepEqual(all, Buffer.concat([
      Buffer.from(UPGRADE_HEAD),
      frame('stdout', Buffer.from('first')),
      frame('stdout', Buffer.from('second')),
      frame('stderr', Buffer.from('bye')),
    ]));
    // the client has closed both ways: the session sees the connection closed and ends
    await waitUntil(() => sessionsEnded === before + 1);
    c.socket.destroy();
  });

  it("answers a plain request with dockerd's 200 head; stdin is what follows its body, which Node's parser never reads as a request", async () => {
    // dockerode without hijack: its options as the body, stdin written after, on the same connection
    const c = open('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 15\r\nConnection: keep-alive\r\n\r\n{"stream":true}first');
    await c.waitFor((b) => b.length >= PLAIN_HEAD.length + 13);
    c.socket.write('GET /_ping HTTP/1.1\r\nHost: x\r\n\r\n');
    await c.waitFor((b) => b.toString().includes('_ping'));
    c.socket.end();
    const all = await c.ended;
    assert.deepEqual(all, Buffer.concat([
      Buffer.from(PLAIN_HEAD),
      frame('stdout', Buffer.from('first')),
      frame('stdout', Buffer.from('GET /_ping HTTP/1.1\r\nHost: x\r\n\r\n')),
      frame('stderr', Buffer.from('bye')),
    ]));
    c.socket.destroy();
  });

  it('drops the body of an upgrade the route does not read, by its length or chunked, and stdin follows it', async () => {
    const sent = [
      'POST /echo HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: tcp\r\nContent-Length: 15\r\n\r\n{"stream":true}stdin',
      'POST /echo HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: tcp\r\nTransfer-Encoding: chunked\r\n\r\nf\r\n{"stream":true}\r\n0\r\n\r\nstdin',
      'POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n7\r\n{"a":1}\r\n0\r\n\r\nstdin',
    ];
    for (const request of sent) {
      const c = open(request);
      await c.waitFor((b) => b.toString().includes('stdin'));
      c.socket.end();
      const head = request.includes('Upgrade: tcp') ? UPGRADE_HEAD : PLAIN_HEAD;
      assert.deepEqual(await c.ended, Buffer.concat([Buffer.from(head), frame('stdout', Buffer.from('stdin')), frame('stderr', Buffer.from('bye'))]), request);
      c.socket.destroy();
    }
  });

  it('reads the body for a route that asks, by its length or chunked, upgraded or plain, leaving what follows as stdin', async () => {
    const sent: Array<[string, string]> = [
      [UPGRADE_HEAD, 'POST /body HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: tcp\r\nContent-Length: 9\r\n\r\n{"a":"b"}stdin'],
      [UPGRADE_HEAD, 'POST /body HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: tcp\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{"a"\r\n5\r\n:"b"}\r\n0\r\n\r\nstdin'],
      [PLAIN_HEAD, 'POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\n{"a":"b"}stdin'],
    ];
    for (const [head, request] of sent) {
      const c = open(request);
      await c.waitFor((b) => b.toString().endsWith('stdin'));
      c.socket.end();
      assert.equal((await c.ended).toString(), `${head}body={"a":"b"};stdin`, request);
      c.socket.destroy();
    }
  });

  it('gives an error before the head as a status, and cuts the connection for one after it', async () => {
    const c = open('POST /fail/before HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n');
    const text = (await c.ended).toString();
    assert.match(text, /^HTTP\/1\.1 404 Not Found\r\n/);
    assert.ok(text.endsWith('{"message":"No such container: x"}\n'), text);
    c.socket.destroy();

    const d = open('POST /fail/after HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n');
    assert.equal((await d.ended).toString(), `${UPGRADE_HEAD}partial`);
    d.socket.destroy();

    // a plain request answered with a status: the connection closes after it
    const e = open('POST /v1.41/fail/before HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}');
    const plain = (await e.ended).toString();
    assert.match(plain, /^HTTP\/1\.1 404 Not Found\r\n/);
    assert.match(plain, /\r\nConnection: close\r\n/);
    e.socket.destroy();
  });

  // found by the API fuzzer (test/fuzz): an answer given before a malformed chunked body was read
  // left the connection paused, so the client's end was never read and the socket stayed open
  it('closes the connection of a status answered before the body was read', async () => {
    const fds = () => readdirSync('/proc/self/fd').length;
    const before = fds();
    for (const body of ['zz\r\n{}\r\n0\r\n\r\n', '2\r\n{}XX0\r\n\r\n', '-2\r\n{}\r\n0\r\n\r\n']) {
      const c = open(`POST /body HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${body}`);
      c.socket.end();
      assert.match((await c.ended).toString(), /^HTTP\/1\.1 400 Bad Request\r\n/);
      c.socket.destroy();
    }
    await new Promise((r) => setTimeout(r, 200));
    assert.ok(fds() <= before, `${fds()} descriptors open, ${before} before`);
  });

  it('is cut when the server shuts down', async () => {
    const own = new ApiServer(router, pino({ level: 'silent' }));
    const ownServer = http.createServer(own.serverOptions);
    own.attach(ownServer);
    const ownPath = path.join(dir, 'own.sock');
    await new Promise<void>((r) => ownServer.listen(ownPath, r));
    const socket = net.connect(ownPath);
    let got = '';
    socket.on('data', (c: Buffer) => (got += c.toString()));
    socket.write('POST /forever HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n');
    await waitUntil(() => got === UPGRADE_HEAD);
    const closed = new Promise((r) => socket.once('close', r));
    const t0 = Date.now();
    await own.close(10_000);
    await closed;
    assert.ok(Date.now() - t0 < 2000, 'shutdown waited for the session');
  });
});

async function waitUntil(test: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!test()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}
