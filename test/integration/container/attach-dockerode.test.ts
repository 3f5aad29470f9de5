// dockerode's attach and exec start, byte for byte on a raw socket (dockerode 4 with docker-modem
// 5): it sends its options as a JSON body with the request, hijacked (`hijack: true`: Connection:
// Upgrade) or plain, and writes stdin after it on the same connection. The body is never stdin. The
// sequences are those of dockerode's own tests, whose `wc -c` counts must come back exact.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Berthd } from '../../helpers/berthd.js';
import { startWithBusybox, teardown } from '../../helpers/containers.js';

const UPGRADE_HEAD = 'HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n';
const PLAIN_HEAD = 'HTTP/1.1 200 OK\r\nContent-Type: application/vnd.docker.raw-stream\r\n\r\n';

/** What docker-modem's dial() writes for an attach or exec start: node's http.request with these headers, in this order. */
function dockerodeRequest(path: string, options: Record<string, boolean>): string {
  const body = JSON.stringify(options);
  // the options go in the query too when the path has one (attach's does)
  const target = path.endsWith('/attach') ? `${path}?${new URLSearchParams(Object.entries(options).map(([k, v]): [string, string] => [k, String(v)]))}` : path;
  const length = `Content-Length: ${Buffer.byteLength(body)}`;
  const headers = options.hijack ? [length, 'Connection: Upgrade', 'Upgrade: tcp', 'Host: localhost'] : [length, 'Host: localhost', 'Connection: keep-alive'];
  return `POST ${target} HTTP/1.1\r\nContent-Type: application/json\r\n${headers.join('\r\n')}\r\n\r\n${body}`;
}

/** dockerode's test helper: letters and digits. */
function randomString(length: number): string {
  const chars = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  let s = '';
  for (let i = 0; i < length; i++) s += chars[Math.floor(Math.random() * chars.length)];
  return s;
}

interface Hijacked {
  socket: net.Socket;
  /** What came after the head, as dockerode's stream gives it. */
  output(): string;
}

async function dial(d: Berthd, request: string, head: string): Promise<Hijacked> {
  const socket = net.connect({ path: d.socket, allowHalfOpen: true });
  let got = Buffer.alloc(0);
  socket.on('data', (c: Buffer) => (got = Buffer.concat([got, c])));
  socket.write(request);
  const deadline = Date.now() + 10_000;
  while (got.length < head.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  assert.equal(got.subarray(0, head.length).toString(), head);
  return { socket, output: () => got.subarray(head.length).toString('latin1') };
}

describe("dockerode's attach and exec start", () => {
  let d: Berthd;
  before(async () => {
    d = await startWithBusybox();
  });
  after(async () => {
    await teardown(d);
  });

  /** dockerode's createContainer for its #stdin tests, with busybox for ubuntu. */
  const create = async (config: { Tty: boolean; AttachStdin: boolean; Cmd: string[] }): Promise<string> => {
    const r = await d.request('POST', '/containers/create', {
      json: {
        Hostname: '', User: '', AttachStdout: true, AttachStderr: true, OpenStdin: true, StdinOnce: false, Env: null,
        Dns: ['8.8.8.8', '8.8.4.4'], Image: 'busybox', Volumes: {}, VolumesFrom: [], ...config,
      },
    });
    assert.equal(r.status, 201, r.body);
    return (r.json() as { Id: string }).Id;
  };
  const startAndWrite = async (id: string, stream: Hijacked, stdin: string): Promise<void> => {
    assert.equal((await d.request('POST', `/containers/${id}/start`)).status, 204);
    stream.socket.write(stdin);
    const wait = await d.request('POST', `/containers/${id}/wait`, { timeoutMs: 20_000 });
    assert.equal(wait.status, 200, wait.body);
  };
  const attachOptions = { stream: true, stdin: true, stdout: true, stderr: true };

  for (const hijack of [true, false]) {
    const options = hijack ? { ...attachOptions, hijack: true } : attachOptions;
    const head = hijack ? UPGRADE_HEAD : PLAIN_HEAD;

    it(`${hijack ? 'hijack: true' : 'plain'}: 1000 bytes to \`wc -c\` under a TTY, as dockerode's test writes them`, async () => {
      const id = await create({ Tty: true, AttachStdin: true, Cmd: ['wc', '-c'] });
      const stream = await dial(d, dockerodeRequest(`/containers/${id}/attach`, options), head);
      const size = 1000;
      const text = randomString(size);
      await startAndWrite(id, stream, `${text}\n\x04`);
      // the terminal echoes the line, then wc counts it with its newline
      assert.equal(stream.output(), `${text}\r\n${size + 1}\r\n`);
      assert.equal(+stream.output().slice(size), size + 1);
      stream.socket.destroy();
    });

    it(`${hijack ? 'hijack: true' : 'plain'}: 5000 bytes through \`sh\` to \`wc -c\` without a TTY, as dockerode's test writes them`, async () => {
      const id = await create({ Tty: false, AttachStdin: false, Cmd: ['sh'] });
      const stream = await dial(d, dockerodeRequest(`/containers/${id}/attach`, options), head);
      const size = 5000;
      await startAndWrite(id, stream, `printf "${randomString(size)}" | wc -c; exit;\n`);
      // one stdout frame, and nothing on stderr (a body taken for stdin made sh say `{stream:true,...}printf: not found`)
      assert.equal(stream.output(), `\x01\x00\x00\x00\x00\x00\x00\x05${size}\n`);
      assert.equal(parseInt(stream.output().replace(/\D/g, '')), size);
      stream.socket.destroy();
    });
  }

  it("exec start with hijack: true and stdin: its options are the start's config, and stdin follows them", async () => {
    const run = await d.docker(['run', '-d', 'busybox', 'sleep', '300']);
    assert.equal(run.code, 0, run.stderr);
    const exec = await d.request('POST', `/containers/${run.stdout.trim()}/exec`, { json: { Cmd: ['cat'], AttachStdin: true, AttachStdout: true } });
    assert.equal(exec.status, 201, exec.body);
    const id = (exec.json() as { Id: string }).Id;
    const stream = await dial(d, dockerodeRequest(`/exec/${id}/start`, { hijack: true, stdin: true }), UPGRADE_HEAD);
    const sample = 'echo\nall\nof\nme\n';
    const ended = new Promise((r) => stream.socket.once('end', r));
    stream.socket.end(sample);
    await ended;
    const out = Buffer.from(stream.output(), 'latin1');
    // stdout frames carrying exactly what was sent
    let payload = '';
    for (let at = 0; at < out.length; at += 8 + out.readUInt32BE(at + 4)) {
      assert.equal(out[at], 1);
      payload += out.subarray(at + 8, at + 8 + out.readUInt32BE(at + 4)).toString();
    }
    assert.equal(payload, sample);
    stream.socket.destroy();
  });
});
