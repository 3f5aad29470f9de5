// The syslog log driver as dockerd 20.10's: each line of the container's output goes to the
// server as srslog formats it (the reference's bytes: `<30>Nov 26 02:33:26 9f412e6c8b7e[26128]:
// hello\n` by default, rfc5424's `<158>1 2026-11-26T02:44:20Z vm <tag> <pid> <tag> - out1\n`,
// tcp+tls's octet counts), stdout as info and stderr as err in the chosen facility, empty lines
// skipped; `docker logs` reads the local cache (container-cached.log, local's format) that dual
// logging keeps, or answers 501 with cache-disabled; bad options fail create and start with the
// reference's messages. The receivers are the test's own, on 127.0.0.1 in berthd's namespace.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type dgram from 'node:dgram';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { Berthd } from '../../helpers/berthd.js';
import { startWithBusybox, sweep, teardown } from '../../helpers/containers.js';
import { listenIn } from '../../helpers/netns.js';
import { makeTlsFixtures, type TlsFixtures } from '../../helpers/tls.js';
import { until } from '../../helpers/until.js';

/** time.Stamp: "Nov 26 02:33:26", the day padded with a space */
const STAMP = String.raw`[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d`;
/** time.RFC3339 in the daemon's zone */
const RFC3339 = String.raw`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:Z|[+-]\d\d:\d\d)`;
const RFC3339_MICRO = String.raw`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}(?:Z|[+-]\d\d:\d\d)`;

/** What a receiver got: UDP's datagrams, or the bytes of each stream connection. */
class Received {
  readonly datagrams: Buffer[] = [];
  readonly streams: Buffer[] = [];

  all(): Buffer {
    return Buffer.concat([...this.datagrams, ...this.streams]);
  }

  /** the messages of newline-framed streams */
  lines(): string[] {
    return this.all().toString('latin1').split(/(?<=\n)/).filter((l) => l !== '');
  }
}

function receiveUdp(socket: dgram.Socket): Received {
  const got = new Received();
  socket.on('message', (m) => got.datagrams.push(m));
  return got;
}

function receiveStream(server: net.Server | tls.Server): Received & { connections: net.Socket[] } {
  const got = Object.assign(new Received(), { connections: [] as net.Socket[] });
  server.on(server instanceof tls.Server ? 'secureConnection' : 'connection', (socket: net.Socket) => {
    const index = got.streams.length;
    got.connections.push(socket);
    got.streams.push(Buffer.alloc(0));
    socket.on('data', (d: Buffer) => (got.streams[index] = Buffer.concat([got.streams[index], d])));
    socket.on('error', () => {});
  });
  return got;
}

describe('syslog log driver', () => {
  let d: Berthd;
  let netns: string;
  let berthdPid: number;
  let tlsDir: string;
  let fixtures: TlsFixtures;
  const closers: Array<() => void> = [];

  before(async () => {
    d = await startWithBusybox();
    netns = d.netns as string;
    berthdPid = Number(readFileSync(d.pidfile, 'utf8').trim());
    tlsDir = mkdtempSync(path.join(os.tmpdir(), 'berth-syslog-tls-'));
    fixtures = makeTlsFixtures(tlsDir);
  });
  after(async () => {
    for (const close of closers) close();
    await teardown(d);
    rmSync(tlsDir, { recursive: true, force: true });
  });

  async function udpReceiver(): Promise<{ got: Received; address: string }> {
    const socket = await listenIn(netns, 'udp');
    closers.push(() => socket.close());
    return { got: receiveUdp(socket), address: `udp://127.0.0.1:${socket.address().port}` };
  }

  async function tcpReceiver(wrap?: (server: net.Server) => tls.Server): Promise<{ got: ReturnType<typeof receiveStream>; port: number }> {
    const server = await listenIn(netns, 'tcp');
    closers.push(() => server.close());
    const port = (server.address() as net.AddressInfo).port;
    return { got: receiveStream(wrap ? wrap(server) : server), port };
  }

  /** A port on berthd's loopback where nothing listens (a server made there and closed). */
  async function closedPort(): Promise<number> {
    const server = await listenIn(netns, 'tcp');
    const port = (server.address() as net.AddressInfo).port;
    await new Promise((resolve) => server.close(resolve));
    return port;
  }

  async function idOf(name: string): Promise<string> {
    return ((await d.request('GET', `/containers/${name}/json`)).json() as { Id: string }).Id;
  }

  test("default format over UDP: srslog's UnixFormatter bytes, daemon.info and daemon.err, empty lines skipped; docker logs reads the cache", async () => {
    const { got, address } = await udpReceiver();
    const run = await d.docker(['run', '--name', 'sl-udp', '--log-driver', 'syslog', '--log-opt', `syslog-address=${address}`, 'busybox', 'sh', '-c', 'echo hello; echo err >&2; echo; printf "no newline"']);
    assert.equal(run.code, 0, run.stderr);
    const id = await idOf('sl-udp');
    await until('three datagrams', () => got.datagrams.length, (n) => n >= 3);
    const tag = `${id.slice(0, 12)}\\[${berthdPid}\\]`;
    const texts = got.datagrams.map((b) => b.toString('latin1')).sort();
    assert.equal(texts.length, 3, JSON.stringify(texts));
    assert.match(texts[0], new RegExp(`^<27>${STAMP} ${tag}: err\\n$`));
    assert.match(texts[1], new RegExp(`^<30>${STAMP} ${tag}: hello\\n$`));
    assert.match(texts[2], new RegExp(`^<30>${STAMP} ${tag}: no newline\\n$`));

    const inspect = (await d.request('GET', `/containers/${id}/json`)).json() as { LogPath: string; HostConfig: { LogConfig: unknown } };
    assert.equal(inspect.LogPath, '');
    assert.deepEqual(inspect.HostConfig.LogConfig, { Type: 'syslog', Config: { 'syslog-address': address } });
    assert.ok(existsSync(path.join(d.dataRoot, 'containers', id, 'container-cached.log')));
    const logs = await d.docker(['logs', 'sl-udp']);
    assert.equal(logs.code, 0, logs.stderr);
    assert.equal(logs.stdout, 'hello\n\nno newline');
    assert.equal(logs.stderr, 'err\n');
  });

  test('rfc5424 over TCP: one connection, newline-framed, the facility and a tag template', async () => {
    const { got, port } = await tcpReceiver();
    const run = await d.docker([
      'run', '--name', 'sl-tcp', '--log-driver', 'syslog',
      '--log-opt', `syslog-address=tcp://127.0.0.1:${port}`, '--log-opt', 'syslog-format=rfc5424', '--log-opt', 'syslog-facility=local3',
      '--log-opt', 'tag={{.Name}}/{{.ImageName}}',
      'busybox', 'sh', '-c', 'echo out1; echo err1 >&2; echo out2',
    ]);
    assert.equal(run.code, 0, run.stderr);
    await until('three messages', () => got.lines().length, (n) => n >= 3);
    assert.equal(got.connections.length, 1);
    const host = os.hostname();
    const lines = got.lines().sort();
    const head = (pri: number) => `^<${pri}>1 ${RFC3339} ${host} sl-tcp/busybox ${berthdPid} sl-tcp/busybox - `;
    assert.match(lines[0], new RegExp(`${head(155)}err1\\n$`));
    assert.match(lines[1], new RegExp(`${head(158)}out1\\n$`));
    assert.match(lines[2], new RegExp(`${head(158)}out2\\n$`));
  });

  test('rfc5424micro over tcp+tls: verified against the CA, each message octet-counted', async () => {
    const { got, port } = await tcpReceiver((server) => {
      const secure = tls.createServer({ cert: readFileSync(fixtures.serverCert), key: readFileSync(fixtures.serverKey) });
      server.on('connection', (socket) => secure.emit('connection', socket));
      return secure;
    });
    const run = await d.docker([
      'run', '--name', 'sl-tls', '--log-driver', 'syslog',
      '--log-opt', `syslog-address=tcp+tls://127.0.0.1:${port}`, '--log-opt', `syslog-tls-ca-cert=${fixtures.ca}`,
      '--log-opt', 'syslog-format=rfc5424micro', '--log-opt', 'syslog-facility=7',
      'busybox', 'sh', '-c', 'echo out1; echo out2',
    ]);
    assert.equal(run.code, 0, run.stderr);
    const id = (await idOf('sl-tls')).slice(0, 12);
    await until('two framed messages', () => got.all().toString('latin1').match(/out\d\n/g)?.length ?? 0, (n) => n >= 2);
    const frames = got.all().toString('latin1');
    const message = (text: string) => `<62>1 ${RFC3339_MICRO} ${os.hostname()} ${id} ${berthdPid} ${id} - ${text}\n`;
    const m = new RegExp(`^(\\d+) (${message('out1')})(\\d+) (${message('out2')})$`).exec(frames);
    assert.ok(m, frames);
    assert.equal(Number(m[1]), Buffer.byteLength(m[2]));
    assert.equal(Number(m[3]), Buffer.byteLength(m[4]));

    // a server the CA did not sign fails the start as dockerd's does
    const rogue = await d.docker(['run', '--log-driver', 'syslog', '--log-opt', `syslog-address=tcp+tls://127.0.0.1:${port}`, 'busybox', 'true']);
    assert.match(rogue.stderr, /Error response from daemon: failed to initialize logging driver: x509: certificate signed by unknown authority/);
  });

  test('rfc3164 to a unix stream socket', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'berth-syslog-unix-'));
    const socketPath = path.join(dir, 'log.sock');
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    closers.push(() => {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const got = receiveStream(server);
    const run = await d.docker(['run', '--name', 'sl-unix', '--log-driver', 'syslog', '--log-opt', `syslog-address=unix://${socketPath}`, '--log-opt', 'syslog-format=rfc3164', 'busybox', 'echo', 'via unix']);
    assert.equal(run.code, 0, run.stderr);
    const id = (await idOf('sl-unix')).slice(0, 12);
    await until('the message', () => got.lines().length, (n) => n >= 1);
    assert.match(got.lines()[0], new RegExp(`^<30>${STAMP} ${os.hostname()} ${id}\\[${berthdPid}\\]: via unix\\n$`));
  });

  test('a unixgram socket (through socat): one datagram a message', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'berth-syslog-dgram-'));
    const socketPath = path.join(dir, 'log.sock');
    // the receiver: socat reports each datagram's length (-x) and writes its bytes out
    const receiver = spawn('socat', ['-x', '-u', `UNIX-RECV:${socketPath}`, 'STDOUT'], { stdio: ['ignore', 'pipe', 'pipe'] });
    closers.push(() => {
      receiver.kill();
      rmSync(dir, { recursive: true, force: true });
    });
    let bytes = Buffer.alloc(0);
    let report = '';
    receiver.stdout.on('data', (d: Buffer) => (bytes = Buffer.concat([bytes, d])));
    receiver.stderr.on('data', (d: Buffer) => (report += d.toString('latin1')));
    await until('the socket', () => existsSync(socketPath), (ok) => ok);
    const run = await d.docker(['run', '--name', 'sl-dgram', '--log-driver', 'syslog', '--log-opt', `syslog-address=unixgram://${socketPath}`, 'busybox', 'sh', '-c', 'echo one; echo two']);
    assert.equal(run.code, 0, run.stderr);
    const id = (await idOf('sl-dgram')).slice(0, 12);
    const lengths = () => [...report.matchAll(/length=(\d+)/g)].map((m) => Number(m[1]));
    await until('two datagrams', () => lengths().length, (n) => n >= 2);
    await until('their bytes', () => bytes.length, (n) => n >= lengths()[0] + lengths()[1]);
    const first = bytes.subarray(0, lengths()[0]).toString('latin1');
    const second = bytes.subarray(lengths()[0], lengths()[0] + lengths()[1]).toString('latin1');
    assert.match(first, new RegExp(`^<30>${STAMP} ${id}\\[${berthdPid}\\]: one\\n$`));
    assert.match(second, new RegExp(`^<30>${STAMP} ${id}\\[${berthdPid}\\]: two\\n$`));
    // a file that is no socket, as the reference's unixgram:///etc/hostname
    const plain = path.join(dir, 'plain');
    writeFileSync(plain, '');
    const refused = await d.docker(['run', '--log-driver', 'syslog', '--log-opt', `syslog-address=unixgram://${plain}`, 'busybox', 'true']);
    assert.match(refused.stderr, new RegExp(`failed to initialize logging driver: dial unixgram ${plain}: connect: connection refused\\n`));
  });

  test("bad options fail create with the reference's messages", async () => {
    const create = (...opts: string[]) => d.docker(['create', '--log-driver', 'syslog', ...opts.flatMap((o) => ['--log-opt', o]), 'busybox', 'true']);
    const cases: Array<[string[], string]> = [
      [['syslog-address=foo://x'], 'syslog-address should be in form proto://address, got foo://x'],
      [['syslog-address=udp://[::1'], 'parse "udp://[::1": missing \']\' in host'],
      [['syslog-address=udp://a:b:c'], 'parse "udp://a:b:c": invalid port ":c" after host'],
      [['syslog-address=unix:///nonexistent/sock'], 'stat /nonexistent/sock: no such file or directory'],
      [['syslog-facility=24'], 'invalid syslog facility'],
      [['syslog-format=rfc9999'], 'Invalid syslog format'],
      [['max-size=1m'], "unknown log opt 'max-size' for syslog log driver"],
      [['cache-disabled=maybe'], 'invalid value for option cache-disabled: maybe'],
    ];
    for (const [opts, message] of cases) {
      const r = await create(...opts);
      assert.equal(r.code, 1, `${opts.join(' ')}: ${r.stdout}`);
      assert.equal(r.stderr.trim(), `Error response from daemon: ${message}`);
    }
    // the cache's other options are taken by every driver (and read by none in 20.10)
    for (const driver of ['syslog', 'json-file', 'local']) {
      const r = await d.docker(['create', '--log-driver', driver, '--log-opt', 'cache-max-size=zzz', '--log-opt', 'cache-max-file=2', '--log-opt', 'cache-compress=false', '--log-opt', 'cache-disabled=true', 'busybox', 'true']);
      assert.equal(r.code, 0, `${driver}: ${r.stderr}`);
    }
  });

  test("start fails when the server can't be reached or a value is refused; docker logs of a stopped container dials too, as dockerd's getLogger", async () => {
    const port = await closedPort();
    const run = (...opts: string[]) => d.docker(['run', '--log-driver', 'syslog', ...opts.flatMap((o) => ['--log-opt', o]), 'busybox', 'true']);
    const refused = await run(`syslog-address=tcp://127.0.0.1:${port}`);
    assert.match(refused.stderr, new RegExp(`Error response from daemon: failed to initialize logging driver: dial tcp 127\\.0\\.0\\.1:${port}: connect: connection refused\\n`));
    const badPort = await run('syslog-address=udp://127.0.0.1:99999');
    assert.match(badPort.stderr, /Error response from daemon: failed to initialize logging driver: dial udp: address 99999: invalid port\n/);
    const badTag = await run('syslog-address=udp://127.0.0.1:514', 'tag={{.Bogus}}');
    assert.match(badTag.stderr, /failed to initialize logging driver: template: log-tag:1:2: executing "log-tag" at <\.Bogus>: can't evaluate field Bogus in type \*logger\.Info/);

    // the server that took the run's output is gone by the time its log is read
    const server = await listenIn(netns, 'tcp');
    const got = receiveStream(server);
    const serverPort = (server.address() as net.AddressInfo).port;
    const ran = await d.docker(['run', '--name', 'sl-gone', '--log-driver', 'syslog', '--log-opt', `syslog-address=tcp://127.0.0.1:${serverPort}`, 'busybox', 'echo', 'kept']);
    assert.equal(ran.code, 0, ran.stderr);
    await until('the message', () => got.lines().length, (n) => n >= 1);
    for (const socket of got.connections) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
    const logs = await d.request('GET', '/containers/sl-gone/logs?stdout=1');
    assert.equal(logs.status, 500);
    assert.deepEqual(logs.json(), { message: `dial tcp 127.0.0.1:${serverPort}: connect: connection refused` });
  });

  test('cache-disabled: the output still goes to the server, and docker logs answers 501 as dockerd', async () => {
    const { got, address } = await udpReceiver();
    const run = await d.docker(['run', '--name', 'sl-nocache', '--log-driver', 'syslog', '--log-opt', `syslog-address=${address}`, '--log-opt', 'cache-disabled=true', 'busybox', 'echo', 'hi']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'hi\n');
    await until('the message', () => got.datagrams.length, (n) => n >= 1);
    const id = await idOf('sl-nocache');
    assert.ok(!existsSync(path.join(d.dataRoot, 'containers', id, 'container-cached.log')));
    const logs = await d.request('GET', '/containers/sl-nocache/logs?stdout=1');
    assert.equal(logs.status, 501);
    assert.deepEqual(logs.json(), { message: 'configured logging driver does not support reading' });
  });

  test('a server that goes away never holds the container: its messages are dropped, the cache keeps every line', async () => {
    const server = await listenIn(netns, 'tcp');
    const got = receiveStream(server);
    const port = (server.address() as net.AddressInfo).port;
    // the output comes once the server is gone
    const script = 'while [ ! -e /tmp/go ]; do sleep 0.1; done; i=0; while [ $i -lt 2000 ]; do echo "line $i"; i=$((i+1)); done';
    const started = await d.docker(['run', '-d', '--name', 'sl-down', '--log-driver', 'syslog', '--log-opt', `syslog-address=tcp://127.0.0.1:${port}`, 'busybox', 'sh', '-c', script]);
    assert.equal(started.code, 0, started.stderr);
    await until('the connection', () => got.connections.length, (n) => n >= 1);
    for (const socket of got.connections) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
    const go = await d.docker(['exec', 'sl-down', 'touch', '/tmp/go']);
    assert.equal(go.code, 0, go.stderr);
    const waited = await d.docker(['wait', 'sl-down']);
    assert.equal(waited.stdout.trim(), '0');
    assert.equal(got.lines().length, 0);
    // dockerd's getLogger dials again for a stopped container: with the server gone that fails
    const logs = await d.docker(['logs', 'sl-down']);
    assert.match(logs.stderr, new RegExp(`dial tcp 127\\.0\\.0\\.1:${port}: connect: connection refused`));
    const id = await idOf('sl-down');
    const cache = readFileSync(path.join(d.dataRoot, 'containers', id, 'container-cached.log'));
    for (const n of [0, 1000, 1999]) assert.ok(cache.includes(`line ${n}`), `line ${n} is in the cache`);
  });
});

describe('syslog across a daemon restart', () => {
  let d: Berthd;
  after(async () => {
    await teardown(d);
  });

  test("a run the next berthd adopts goes on to the server (dialled with its first message, the new daemon's pid) and to the cache", async () => {
    d = await startWithBusybox();
    const { dataRoot, socket } = d;
    const netns = d.netns as string;
    const udp = await listenIn(netns, 'udp');
    const got = receiveUdp(udp);
    const address = `udp://127.0.0.1:${udp.address().port}`;
    const script = 'echo before; while [ ! -e /tmp/go ]; do sleep 0.1; done; echo after';
    const started = await d.docker(['run', '-d', '--name', 'sl-adopted', '--log-driver', 'syslog', '--log-opt', `syslog-address=${address}`, 'busybox', 'sh', '-c', script]);
    assert.equal(started.code, 0, started.stderr);
    await until('the first message', () => got.datagrams.length, (n) => n >= 1);
    await d.stop('SIGTERM');
    const old = d;
    d = await Berthd.start({ dataRoot, socket, execRoot: `${old.dir}/exec`, netns });
    const pid = Number(readFileSync(d.pidfile, 'utf8').trim());
    assert.equal((await d.docker(['exec', 'sl-adopted', 'touch', '/tmp/go'])).code, 0);
    assert.equal((await d.docker(['wait', 'sl-adopted'])).stdout.trim(), '0');
    await until('the second message', () => got.datagrams.length, (n) => n >= 2);
    const id = (await d.docker(['inspect', '-f', '{{.Id}}', 'sl-adopted'])).stdout.trim().slice(0, 12);
    assert.match(got.datagrams[1].toString('latin1'), new RegExp(`^<30>${STAMP} ${id}\\[${pid}\\]: after\\n$`));
    assert.equal((await d.docker(['logs', 'sl-adopted'])).stdout, 'before\nafter\n');
    udp.close();
    await d.docker(['rm', 'sl-adopted']);
    await teardown(d);
    sweep(old.dir);
  });
});
