// The attach and logs routes on a real ApiServer, with a backend that serves real containers under
// conmon: raw bytes on the socket for attach (`echo hi | docker run -i busybox cat`: the client
// half-closes, output comes until the container ends), dockerd's heads and errors for logs.
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { containerAttach } from '../../../src/api/routes/container/container-attach.js';
import { containerLogs } from '../../../src/api/routes/container/container-logs.js';
import type { ContainerStreamsBackend } from '../../../src/api/routes/container/streams-backend.js';
import { Router } from '../../../src/api/router.js';
import { ApiServer } from '../../../src/api/server.js';
import { frame } from '../../../src/api/streams/mux-writer.js';
import { runAttach, type AttachContainer } from '../../../src/container/attach/attach-session.js';
import { parseDetachKeys } from '../../../src/container/attach/detach-keys.js';
import { readContainerLog } from '../../../src/container/logs/container-log.js';
import { notFound } from '../../../src/errors.js';
import { request } from '../../helpers/http.js';
import { k8sFileCodec } from '../../../src/container/logs/log-codecs.js';
import { ConmonFixture, type RunningContainer } from '../../helpers/conmon-fixture.js';

const fixture = new ConmonFixture();
/** What the container area would know of each container: where its log and attach socket are, and its run. */
const targets = new Map<string, AttachContainer & { running: boolean }>();
const events: string[] = [];

function target(id: string): AttachContainer & { running: boolean } {
  const t = targets.get(id);
  if (!t) throw notFound(`No such container: ${id}`);
  return t;
}

// the container area's sessions, over a conmon fixture instead of the service
const backend: ContainerStreamsBackend = {
  attach(id, req) {
    const detachKeys = parseDetachKeys(req.detachKeys);
    const container = target(id);
    return {
      tty: container.tty,
      async run({ out, input, signal }) {
        events.push(`attach ${id}`);
        const outcome = await runAttach({ container, opts: { ...req, detachKeys }, out, input, signal });
        if (outcome === 'detached') events.push(`detach ${id}`);
      },
    };
  },
  async logs(id, req) {
    const container = target(id);
    return {
      tty: container.tty,
      async run({ out, signal }) {
        const entries = readContainerLog(container.log.file, container.log.codec, { stdout: req.stdout, stderr: req.stderr, tail: req.tail, follow: req.follow && container.running, ended: container.ended, signal });
        for await (const entry of entries) await out.write(entry.stream, req.timestamps ? Buffer.concat([Buffer.from(`${entry.time} `), entry.data]) : entry.data);
      },
    };
  },
};

const socketPath = path.join(fixture.root, 'api.sock');
let api: ApiServer;

before(async () => {
  api = new ApiServer(new Router([
    { operationId: 'ContainerAttach', method: 'POST', path: '/containers/{id}/attach', handle: containerAttach(backend), hijacks: true },
    { operationId: 'ContainerLogs', method: 'GET', path: '/containers/{id}/logs', handle: containerLogs(backend) },
  ]), pino({ level: 'silent' }));
  const server = http.createServer(api.serverOptions);
  api.attach(server);
  await new Promise<void>((r) => server.listen(socketPath, r));
});

after(async () => {
  await api.close(1000);
  await fixture.cleanup();
  assert.deepEqual(fixture.liveConmons(), [], 'a conmon of these tests is still running');
});

function register(name: string, c: RunningContainer, started: Promise<unknown>, running: boolean): void {
  targets.set(name, {
    log: { file: c.opts.logPath, codec: k8sFileCodec },
    tty: c.opts.terminal,
    attachSocketPath: c.started.attachSocketPath,
    ended: c.ended,
    started,
    stdinOpen: c.opts.stdin,
    stdinOnce: true,
    running,
  });
}

describe('POST /containers/{id}/attach', () => {
  it('runs `echo hi | cat` as the docker CLI does: attach, start, stdin, half-close, output until the end', async () => {
    const c = await fixture.create(['cat'], { stdin: true });
    let start!: () => void;
    register('cat', c, new Promise<void>((r) => (start = r)), false);
    const socket = net.connect({ path: socketPath, allowHalfOpen: true });
    let got = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => (got = Buffer.concat([got, d])));
    const ended = new Promise((r) => socket.once('end', r));
    socket.write('POST /v1.41/containers/cat/attach?stream=1&stdin=1&stdout=1&stderr=1 HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n');
    await new Promise((r) => setTimeout(r, 100));
    fixture.start(c);
    start();
    socket.end('hi\n');
    await ended;
    socket.destroy();
    assert.deepEqual(got, Buffer.concat([
      Buffer.from('HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n'),
      frame('stdout', Buffer.from('hi\n')),
    ]));
    assert.equal((await c.ended).exitCode, 0);
    assert.ok(events.includes('attach cat'));
  });

  it('refuses bad detach keys and unknown containers before the head', async () => {
    const bad = await request({ socketPath }, 'POST', '/containers/cat/attach?stdout=1&detachKeys=ctrl-A');
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.json(), { message: 'Invalid detach keys (ctrl-A) provided' });
    const missing = await request({ socketPath }, 'POST', '/containers/nosuch/attach?stdout=1');
    assert.equal(missing.status, 404);
  });
});

describe('GET /containers/{id}/logs', () => {
  let c: RunningContainer;
  before(async () => {
    c = await fixture.create(['sh', '-c', 'echo b1 >&2; sleep 0.1; echo a1; printf part; sleep 0.1; echo ial; echo a2']);
    fixture.start(c);
    await c.ended;
    register('done', c, Promise.resolve(), false);
  });

  it('sends frames with no Content-Type, as dockerd 20.10', async () => {
    const r = await rawGet('/containers/done/logs?stdout=1&stderr=1');
    assert.equal(r.headers['content-type'], undefined);
    const frames = demux(r.body);
    assert.deepEqual(frames.filter((f) => f.stream === 1).map((f) => f.data).join(''), 'a1\npartial\na2\n');
    assert.deepEqual(frames.filter((f) => f.stream === 2).map((f) => f.data), ['b1\n']);
  });

  it('tails over both streams, then chooses, and prefixes times', async () => {
    const r = await rawGet('/containers/done/logs?stdout=1&tail=1&timestamps=1');
    const frames = demux(r.body);
    assert.equal(frames.length, 1);
    assert.match(frames[0].data, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z a2\n$/);
    assert.equal(demux((await rawGet('/containers/done/logs?stdout=1&tail=all')).body).length, 4);
    assert.equal(demux((await rawGet('/containers/done/logs?stdout=1&tail=0')).body).length, 0);
  });

  it('follows a stopped container to the end of its log and stops', async () => {
    assert.equal(demux((await rawGet('/containers/done/logs?stdout=1&stderr=1&follow=1')).body).length, 5);
  });
});

function rawGet(urlPath: string): Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http.get({ socketPath, path: urlPath }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

function demux(body: Buffer): Array<{ stream: number; data: string }> {
  const out: Array<{ stream: number; data: string }> = [];
  for (let i = 0; i < body.length;) {
    const len = body.readUInt32BE(i + 4);
    out.push({ stream: body[i], data: body.toString('utf8', i + 8, i + 8 + len) });
    i += 8 + len;
  }
  return out;
}
