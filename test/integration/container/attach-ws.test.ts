// GET /containers/{id}/attach/ws with a real WebSocket client (ws) against a real berthd: the
// output of a running container in binary messages (text ones at 1.25), stdin from the client's
// messages, logs=1 replaying the log, detach keys, a normal closure when the container ends,
// statuses before the handshake, and shutdown cutting a live session.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import type { Berthd } from '../../helpers/berthd.js';
import { startWithBusybox, teardown } from '../../helpers/containers.js';

interface Message {
  data: string;
  binary: boolean;
}

/** A client that records what it gets; `opened` rejects with the status of a refused handshake. */
class Client {
  readonly ws: WebSocket;
  readonly messages: Message[] = [];
  readonly opened: Promise<void>;
  readonly closed: Promise<{ code: number }>;

  constructor(d: Berthd, urlPath: string) {
    this.ws = new WebSocket(`ws+unix://${d.socket}:${urlPath}`);
    this.ws.on('message', (data: Buffer, binary) => this.messages.push({ data: data.toString(), binary }));
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => reject(Object.assign(new Error(`handshake refused: ${res.statusCode} ${body}`), { status: res.statusCode, body })));
      });
      this.ws.once('error', reject);
    });
    this.closed = new Promise((resolve) => this.ws.once('close', (code) => resolve({ code })));
    // the refusal also surfaces as an error after 'unexpected-response'
    this.ws.on('error', () => {});
  }

  text(): string {
    return this.messages.map((m) => m.data).join('');
  }

  /** Waits until the output received so far matches. */
  async waitFor(pattern: RegExp, timeoutMs = 10000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(this.text())) {
      if (Date.now() > deadline) throw new Error(`no ${pattern} within ${timeoutMs} ms; got ${JSON.stringify(this.text())}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

function withinMs<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

describe('GET /containers/{id}/attach/ws', () => {
  let d: Berthd;
  before(async () => {
    d = await startWithBusybox();
  });
  after(async () => {
    await teardown(d);
  });

  async function run(args: string[]): Promise<string> {
    const r = await d.docker(['run', '-d', ...args]);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout.trim();
  }

  test('the output of a running container arrives raw in binary messages, and its end closes with 1000', async () => {
    const id = await run(['busybox', 'sh', '-c', 'while true; do echo tick; echo tock >&2; sleep 0.1; done']);
    const c = new Client(d, `/v1.41/containers/${id}/attach/ws?stream=1`);
    await c.opened;
    await c.waitFor(/tick\n[^]*tock\n/);
    assert.ok(c.messages.every((m) => m.binary), 'binary messages at 1.41');
    assert.ok(!c.text().includes('\u0001\u0000\u0000\u0000'), 'no stdcopy headers');
    assert.equal((await d.docker(['kill', id])).code, 0);
    assert.equal((await withinMs(c.closed, 10000, 'the closure after the container ended')).code, 1000);
  });

  test('stdin sent in messages reaches a -i container (stdin=0 is ignored at 1.41, as dockerd)', async () => {
    const id = await run(['-i', 'busybox', 'cat']);
    const c = new Client(d, `/containers/${id}/attach/ws?stream=1&stdin=0`);
    await c.opened;
    c.ws.send(Buffer.from('hello\n'));
    await c.waitFor(/^hello\n$/);
    c.ws.send('world\n');
    await c.waitFor(/^hello\nworld\n$/);
    c.ws.close(1000);
    assert.equal((await withinMs(c.closed, 10000, 'the closure')).code, 1000);
    // the container keeps running: a client going away is no end of it
    assert.equal((await d.docker(['inspect', '-f', '{{.State.Running}}', id])).stdout.trim(), 'true');
    assert.equal((await d.docker(['rm', '-f', id])).code, 0);
  });

  test('at API 1.25 the output comes in text messages', async () => {
    const id = await run(['-i', 'busybox', 'cat']);
    const c = new Client(d, `/v1.25/containers/${id}/attach/ws?stream=1`);
    await c.opened;
    c.ws.send('hi\n');
    await c.waitFor(/^hi\n$/);
    assert.deepEqual(c.messages.map((m) => m.binary), [false]);
    c.ws.close();
    await c.closed;
    assert.equal((await d.docker(['rm', '-f', id])).code, 0);
  });

  test('logs=1 replays the log of an ended container, then closes', async () => {
    const id = await run(['busybox', 'sh', '-c', 'echo first; echo second; echo third']);
    assert.equal((await d.docker(['wait', id])).stdout.trim(), '0');
    const c = new Client(d, `/containers/${id}/attach/ws?logs=1`);
    await c.opened;
    assert.equal((await withinMs(c.closed, 10000, 'the closure after the replay')).code, 1000);
    assert.equal(c.text(), 'first\nsecond\nthird\n');
  });

  test('logs=1&stream=1 replays, then follows a running container', async () => {
    const id = await run(['-i', 'busybox', 'sh', '-c', 'echo before; cat']);
    // the first line is in the log before the session starts
    for (let i = 0; !(await d.docker(['logs', id])).stdout.includes('before'); i++) {
      assert.ok(i < 200, 'the container never printed');
      await new Promise((r) => setTimeout(r, 50));
    }
    const c = new Client(d, `/containers/${id}/attach/ws?logs=1&stream=1`);
    await c.opened;
    await c.waitFor(/^before\n$/);
    c.ws.send('after\n');
    await c.waitFor(/^before\nafter\n$/);
    c.ws.close();
    await c.closed;
    assert.equal((await d.docker(['rm', '-f', id])).code, 0);
  });

  test('detach keys under a TTY end the session and leave the container running', async () => {
    const id = await run(['-it', 'busybox', 'sh']);
    const c = new Client(d, `/containers/${id}/attach/ws?stream=1&detachKeys=ctrl-x`);
    await c.opened;
    c.ws.send('echo $((6*7))\n');
    await c.waitFor(/42\r\n/);
    c.ws.send(Buffer.from([0x18]));
    assert.equal((await withinMs(c.closed, 10000, 'the closure after detaching')).code, 1000);
    assert.equal((await d.docker(['inspect', '-f', '{{.State.Running}}', id])).stdout.trim(), 'true');
    assert.equal((await d.docker(['rm', '-f', id])).code, 0);
  });

  test('refusals are statuses before the handshake: no such container, bad detach keys, not a WebSocket', async () => {
    const missing = new Client(d, '/containers/nosuchcontainer/attach/ws?stream=1');
    await assert.rejects(missing.opened, (err: { status: number; body: string }) => {
      assert.equal(err.status, 404);
      assert.deepEqual(JSON.parse(err.body), { message: 'No such container: nosuchcontainer' });
      return true;
    });
    const id = await run(['busybox', 'sleep', '300']);
    const badKeys = new Client(d, `/containers/${id}/attach/ws?stream=1&detachKeys=ctrl-%21`);
    await assert.rejects(badKeys.opened, (err: { status: number; body: string }) => {
      assert.equal(err.status, 400);
      assert.deepEqual(JSON.parse(err.body), { message: 'Invalid detach keys (ctrl-!) provided' });
      return true;
    });
    const plain = await d.request('GET', `/containers/${id}/attach/ws?stream=1`);
    assert.equal(plain.status, 400);
    assert.deepEqual(plain.json(), { message: 'not websocket protocol' });
    assert.equal((await d.docker(['rm', '-f', id])).code, 0);
  });

  test('shutdown closes a live session', async () => {
    const live = new Client(d, `/containers/${await run(['-i', 'busybox', 'cat'])}/attach/ws?stream=1`);
    await live.opened;
    live.ws.send('ping\n');
    await live.waitFor(/^ping\n$/);
    const stopped = await withinMs(d.stop(), 10000, 'berthd stopping with a live session');
    assert.equal(stopped.code, 0, d.log);
    await withinMs(live.closed, 5000, 'the session closing at shutdown');
  });
});
