// The progress writer on a real HTTP server: jsonmessage's fields and order, dockerd's rendering
// of the progress bar, and the head sent at once or with the first message.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ProgressWriter } from './progress-writer.js';

type Writes = (w: ProgressWriter) => Promise<void>;

let server: http.Server;
let port: number;
const scripts = new Map<string, { headAtOnce: boolean; writes: Writes }>();

before(async () => {
  server = http.createServer(async (req, res) => {
    const script = scripts.get(req.url ?? '') as { headAtOnce: boolean; writes: Writes };
    const w = new ProgressWriter(res, new AbortController().signal, { headAtOnce: script.headAtOnce });
    await script.writes(w);
    w.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
after(() => server.close());

let n = 0;
async function messages(writes: Writes, headAtOnce = false): Promise<{ contentType: string | null; lines: unknown[] }> {
  const url = `/${n++}`;
  scripts.set(url, { headAtOnce, writes });
  const res = await fetch(`http://127.0.0.1:${port}${url}`);
  const text = await res.text();
  assert.equal(res.status, 200);
  return { contentType: res.headers.get('content-type'), lines: text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as unknown) };
}

describe('ProgressWriter', () => {
  it('writes one JSON message a line, as application/json', async () => {
    const r = await messages(async (w) => {
      await w.stream('Loaded image: a:1\n');
      await w.status('sha256:abc');
      await w.status('Pulling fs layer', 'f1');
      await w.aux({ ID: 'sha256:abc' });
    });
    assert.equal(r.contentType, 'application/json');
    assert.deepEqual(r.lines, [{ stream: 'Loaded image: a:1\n' }, { status: 'sha256:abc' }, { status: 'Pulling fs layer', id: 'f1' }, { aux: { ID: 'sha256:abc' } }]);
  });

  it('renders progress as dockerd does for a client without a terminal', async () => {
    const r = await messages(async (w) => {
      await w.progress('f1', 'Downloading', 1080, 2811);
      await w.progress('f1', 'Extracting', 32768);
      await w.progress('f1', 'Downloading', 5000, 4000);
      await w.progress('f1', 'Waiting', 0);
    });
    assert.deepEqual(r.lines, [
      { status: 'Downloading', progressDetail: { current: 1080, total: 2811 }, progress: `[${'='.repeat(19)}>${' '.repeat(31)}]   1.08kB/2.811kB`, id: 'f1' },
      { status: 'Extracting', progressDetail: { current: 32768 }, progress: ' 32.77kB', id: 'f1' },
      { status: 'Downloading', progressDetail: { current: 5000, total: 4000 }, progress: `[${'='.repeat(50)}>]      5kB`, id: 'f1' },
      { status: 'Waiting', progressDetail: {}, id: 'f1' },
    ]);
  });

  it("writes a failure in dockerd's words, with errorDetail and the deprecated error", async () => {
    const r = await messages((w) => w.error('archive/tar: invalid tar header'));
    assert.deepEqual(r.lines, [{ errorDetail: { message: 'archive/tar: invalid tar header' }, error: 'archive/tar: invalid tar header' }]);
  });

  it('sends its head with the first message, or at once when asked', async () => {
    const headSent: boolean[] = [];
    await messages(async (w) => {
      headSent.push(w.headSent);
      await w.status('x');
      headSent.push(w.headSent);
    });
    await messages(async (w) => void headSent.push(w.headSent), true);
    assert.deepEqual(headSent, [false, true, true]);
  });

  it('sends the head at the end when no message came', async () => {
    assert.deepEqual(await messages(async () => {}), { contentType: 'application/json', lines: [] });
  });
});
