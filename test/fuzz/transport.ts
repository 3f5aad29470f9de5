// The cases below HTTP's meaning, on raw sockets: unknown versions and malformed request lines,
// a client that sends a byte at a time, clients that leave mid-stream and mid-body, chunked bodies
// cut short or malformed, thousands of idle connections, 100 MB bodies. Each case throws when the
// daemon misbehaves in a way it can see (no answer to a ping meanwhile, a routed error that is not
// JSON); the harness checks the daemon is alive and its memory and descriptors afterwards.
import assert from 'node:assert/strict';
import net from 'node:net';
import type { Berthd } from '../helpers/berthd.js';

export interface TransportOptions {
  /** the delay between the slow client's bytes */
  slowByteMs: number;
  idleConnections: number;
  bigBodyBytes: number;
  /** how many times each mid-stream departure is repeated */
  vanishRepeats: number;
}

export const SHORT_TRANSPORT: TransportOptions = { slowByteMs: 20, idleConnections: 500, bigBodyBytes: 100 * 1024 * 1024, vanishRepeats: 3 };
export const LONG_TRANSPORT: TransportOptions = { slowByteMs: 1000, idleConnections: 5000, bigBodyBytes: 100 * 1024 * 1024, vanishRepeats: 20 };

interface RawAnswer {
  head: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function connect(socket: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const c = net.connect(socket, () => resolve(c));
    c.once('error', reject);
  });
}

/** A connection, tried again while the listen backlog is full (EAGAIN on a unix socket): the daemon accepts as fast as it can. */
async function connectPatiently(socket: string): Promise<net.Socket> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await connect(socket);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN' || attempt > 100) throw err;
      await sleep(10);
    }
  }
}

/** Sends the bytes (a Buffer, or parts with pauses between them) and reads until the daemon closes or `timeoutMs`. */
async function exchange(socket: string, parts: Array<Buffer | string | number>, timeoutMs = 10000): Promise<RawAnswer> {
  const c = await connect(socket);
  const chunks: Buffer[] = [];
  c.on('data', (b: Buffer) => chunks.push(b));
  const closed = new Promise<void>((resolve) => {
    c.on('close', () => resolve());
    c.on('error', () => resolve());
  });
  for (const p of parts) {
    if (typeof p === 'number') await sleep(p);
    else if (!c.destroyed) c.write(p);
  }
  c.end();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([closed, new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
  clearTimeout(timer);
  c.destroy();
  return parseAnswer(Buffer.concat(chunks));
}

function parseAnswer(raw: Buffer): RawAnswer {
  const end = raw.indexOf('\r\n\r\n');
  const head = raw.subarray(0, end < 0 ? raw.length : end).toString('latin1');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  let body = end < 0 ? Buffer.alloc(0) : raw.subarray(end + 4);
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = dechunk(body);
  return { head, status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0), headers, body };
}

function dechunk(b: Buffer): Buffer {
  const out: Buffer[] = [];
  let i = 0;
  for (;;) {
    const nl = b.indexOf('\r\n', i);
    if (nl < 0) break;
    const size = parseInt(b.subarray(i, nl).toString(), 16);
    if (!(size > 0)) break;
    out.push(b.subarray(nl + 2, nl + 2 + size));
    i = nl + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/**
 * An answer that went through the API's dispatch (it carries Api-Version) must be JSON {"message"}
 * when it is an error; one that Node's HTTP parser gave before any route (400, 413, 431, without
 * that header) is Node's, as Go's net/http answers such requests itself.
 */
function assertRoutedErrorIsJson(what: string, a: RawAnswer): void {
  if (a.status < 400 || a.headers['api-version'] === undefined) return;
  assert.match(a.headers['content-type'] ?? '', /^application\/json/, `${what}: ${a.head}`);
  const parsed = JSON.parse(a.body.toString('utf8')) as { message?: unknown };
  assert.equal(typeof parsed.message, 'string', `${what}: ${a.body.toString('utf8')}`);
}

async function pingWithin(d: Berthd, ms: number, what: string): Promise<void> {
  const start = Date.now();
  const r = await d.request('GET', '/_ping', { timeoutMs: ms });
  assert.equal(r.status, 200, `${what}: /_ping answered ${r.status}`);
  assert.ok(Date.now() - start < ms, `${what}: /_ping took ${Date.now() - start} ms`);
}

const request = (method: string, path: string, headers: Record<string, string | number> = {}, body = ''): string =>
  `${method} ${path} HTTP/1.1\r\nHost: berth\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n${body}`;

export interface TransportCase {
  name: string;
  run(): Promise<void>;
}

export function transportCases(d: Berthd, opts: TransportOptions): TransportCase[] {
  const s = d.socket;
  return [
    {
      name: 'unknown API versions and malformed request targets',
      async run() {
        const targets = [
          '/v99999999999999999999.1/_ping', '/v1.42/containers/json', '/v0.0/info', '/v1.41.1/version', '/v/version', '/v1.-1/version',
          '/v1.41//containers/json', '/v1.41/containers/%ff%fe/json', '/v1.41/containers/%zz/json', '/containers/%00/json', '/../../../etc/passwd',
          '/v1.41/containers/json?filters=%7B%22label%22%3A%5B%5D', '/v1.41/containers/json?filters=%ff', '/images/json?all=%', '*', 'http://berth/_ping',
        ];
        for (const t of targets) {
          const a = await exchange(s, [request('GET', t, { Connection: 'close' })]);
          assertRoutedErrorIsJson(`GET ${t}`, a);
        }
        // bytes that are not UTF-8 in the path itself, and a request line that is not HTTP
        for (const raw of [
          Buffer.concat([Buffer.from('GET /containers/'), Buffer.from([0xff, 0xfe, 0x80]), Buffer.from('/json HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n')]),
          Buffer.from('GARBAGE\r\n\r\n'),
          Buffer.from('GET / HTTP/9.9\r\n\r\n'),
          Buffer.from(`GET /_ping HTTP/1.1\r\nHost: b\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`),
          Buffer.from('POST /containers/create HTTP/1.1\r\nHost: b\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'),
          Buffer.from('POST /containers/create HTTP/1.1\r\nHost: b\r\nContent-Length: -1\r\n\r\n'),
          Buffer.from('POST /containers/create HTTP/1.1\r\nHost: b\r\nContent-Length: 99999999999999999999\r\n\r\n{}'),
        ]) {
          const a = await exchange(s, [raw], 3000);
          assertRoutedErrorIsJson(raw.subarray(0, 40).toString('latin1'), a);
        }
        await pingWithin(d, 2000, 'after malformed requests');
      },
    },
    {
      name: `a slow client (a byte every ${opts.slowByteMs} ms) does not hold up others`,
      async run() {
        const body = JSON.stringify({ Image: 'busybox', Cmd: ['true'] });
        const bytes = Buffer.from(request('POST', '/v1.41/containers/create', { 'Content-Type': 'application/json', 'Content-Length': body.length, Connection: 'close' }, body));
        // at one byte a second the whole request takes minutes; its head is cut at Node's headersTimeout, that is fine
        const count = opts.slowByteMs >= 1000 ? 90 : bytes.length;
        const c = await connect(s);
        const answer: Buffer[] = [];
        c.on('data', (b: Buffer) => answer.push(b));
        c.on('error', () => {});
        for (let i = 0; i < count && !c.destroyed; i++) {
          c.write(bytes.subarray(i, i + 1));
          await sleep(opts.slowByteMs);
          if (i % 10 === 0) await pingWithin(d, 1000, `while the slow client is at byte ${i}`);
        }
        if (count === bytes.length) {
          await sleep(1000);
          const a = parseAnswer(Buffer.concat(answer));
          assert.equal(a.status, 201, `the slow client's create: ${a.head}`);
          await d.request('DELETE', `/containers/${(JSON.parse(a.body.toString()) as { Id: string }).Id}?force=1`);
        }
        c.destroy();
      },
    },
    {
      name: 'clients that vanish mid-stream and mid-body',
      async run() {
        const streams = [
          request('GET', '/events'),
          request('GET', '/containers/fuzz-run/logs?follow=1&stdout=1&stderr=1'),
          request('GET', '/containers/fuzz-run/stats'),
          request('POST', '/containers/fuzz-run/attach?stream=1&stdout=1&stdin=1', { Upgrade: 'tcp', Connection: 'Upgrade' }),
          request('POST', '/containers/fuzz-run/wait'),
          request('GET', '/images/get?names=busybox'),
          request('GET', '/containers/fuzz-run/export'),
          request('GET', '/containers/fuzz-run/archive?path=/bin'),
          request('POST', '/images/create?fromImage=127.0.0.1:9/x&tag=1'),
          request('GET', '/containers/fuzz-run/top'),
          // bodies cut off: the length says more is coming
          request('POST', '/images/load', { 'Content-Type': 'application/x-tar', 'Content-Length': 1_000_000 }, 'x'.repeat(1000)),
          request('POST', '/build', { 'Content-Type': 'application/x-tar', 'Content-Length': 1_000_000 }, 'x'.repeat(1000)),
          request('POST', '/images/create?fromSrc=-&repo=fuzz-import', { 'Content-Type': 'application/x-tar', 'Content-Length': 1_000_000 }, 'x'.repeat(1000)),
          request('PUT', '/containers/fuzz-run/archive?path=/tmp', { 'Content-Type': 'application/x-tar', 'Content-Length': 1_000_000 }, 'x'.repeat(1000)),
          request('POST', '/containers/create', { 'Content-Type': 'application/json', 'Content-Length': 1000 }, '{"Image":"busy'),
        ];
        for (let i = 0; i < opts.vanishRepeats; i++) {
          for (const [j, r] of streams.entries()) {
            const c = await connect(s);
            c.on('error', () => {});
            c.write(r);
            // leave at once, after the head, or a moment into the stream
            await sleep([0, 30, 200][(i + j) % 3]);
            c.destroy();
          }
        }
        await sleep(500);
        await pingWithin(d, 2000, 'after clients vanished');
      },
    },
    {
      name: 'chunked bodies cut short and malformed',
      async run() {
        const te = { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', Connection: 'close' };
        const bodies = ['5\r\n{"Ima', '5\r\n{"Ima\r\n', 'zz\r\n{}\r\n0\r\n\r\n', '2\r\n{}\r\n', '2\r\n{}XX0\r\n\r\n', 'ffffffffffffffffff\r\n{}\r\n0\r\n\r\n', '-2\r\n{}\r\n0\r\n\r\n', `${'0'.repeat(5000)}2\r\n{}\r\n0\r\n\r\n`];
        for (const path of ['/containers/create', '/volumes/create', '/networks/create', '/images/load', '/build', '/containers/fuzz-run/exec', '/exec/x/start', '/containers/fuzz-run/attach?stream=1&stdin=1']) {
          for (const b of bodies) {
            const a = await exchange(s, [request('POST', path, te, b)], 2000);
            assertRoutedErrorIsJson(`chunked ${JSON.stringify(b.slice(0, 20))} to ${path}`, a);
          }
        }
        await pingWithin(d, 2000, 'after chunked bodies');
      },
    },
    {
      name: `${opts.idleConnections} idle connections`,
      async run() {
        const conns: net.Socket[] = [];
        try {
          for (let i = 0; i < opts.idleConnections; i++) {
            const c = await connectPatiently(s);
            c.on('error', () => {});
            // a third send half a head, a third a whole keep-alive request and then nothing, a third nothing
            if (i % 3 === 0) c.write('GET /_ping HTTP/1.1\r\nHost: b\r\n');
            if (i % 3 === 1) c.write(request('GET', '/_ping'));
            conns.push(c);
          }
          await sleep(500);
          await pingWithin(d, 3000, `with ${opts.idleConnections} idle connections open`);
          const r = await d.request('GET', '/containers/json?all=1', { timeoutMs: 5000 });
          assert.equal(r.status, 200);
        } finally {
          for (const c of conns) c.destroy();
          await sleep(1000);
        }
      },
    },
    {
      name: `bodies of ${opts.bigBodyBytes} bytes`,
      async run() {
        const n = opts.bigBodyBytes;
        const filler = Buffer.alloc(n - 30, 'a');
        const jsonish = Buffer.concat([Buffer.from('{"Image":"busybox","Env":["A='), filler, Buffer.from('"]}')]);
        const cases: Array<{ path: string; type: string; body: Buffer; chunked?: boolean }> = [
          { path: '/containers/create', type: 'application/json', body: jsonish },
          { path: '/containers/create', type: 'application/json', body: jsonish, chunked: true },
          { path: '/volumes/create', type: 'application/json', body: jsonish },
          { path: '/images/load', type: 'application/x-tar', body: filler },
          { path: '/build', type: 'application/x-tar', body: filler },
          { path: '/containers/fuzz-run/exec', type: 'application/json', body: jsonish },
        ];
        for (const c of cases) {
          const head = request('POST', c.path, { 'Content-Type': c.type, Connection: 'close', ...(c.chunked ? { 'Transfer-Encoding': 'chunked' } : { 'Content-Length': c.body.length }) });
          const body = c.chunked ? Buffer.concat([Buffer.from(`${c.body.length.toString(16)}\r\n`), c.body, Buffer.from('\r\n0\r\n\r\n')]) : c.body;
          const a = await exchange(s, [head, body], 60000);
          assertRoutedErrorIsJson(`${n} bytes to ${c.path}`, a);
          if (a.status === 201 && c.path === '/containers/create') await d.request('DELETE', `/containers/${(JSON.parse(a.body.toString()) as { Id: string }).Id}?force=1`, { timeoutMs: 30000 });
        }
        await pingWithin(d, 2000, 'after big bodies');
      },
    },
  ];
}
