import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import http from 'node:http';
import { it } from 'node:test';
import { Berthd } from '../../helpers/berthd.js';

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  it(`${signal} stops berthd with exit 0 and removes its socket and pidfile`, async () => {
    const d = await Berthd.start();
    assert.ok(existsSync(d.socket));
    assert.ok(existsSync(d.pidfile));
    const result = await d.stop(signal);
    assert.deepEqual(result, { code: 0, signal: null });
    assert.ok(!existsSync(d.socket), 'socket left behind');
    assert.ok(!existsSync(d.pidfile), 'pidfile left behind');
  });
}

it('SIGTERM cuts an open event stream and still exits 0', async () => {
  const d = await Berthd.start();
  const ended = new Promise<number>((resolve, reject) => {
    const req = http.get({ socketPath: d.socket, path: '/events' }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  // the stream is open once /info counts its listener
  for (let i = 0; i < 100; i++) {
    const info = (await d.request('GET', '/info')).json() as { NEventsListener: number };
    if (info.NEventsListener === 1) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  const result = await d.stop('SIGTERM');
  assert.equal(await ended, 200);
  assert.deepEqual(result, { code: 0, signal: null });
});

it('refuses a pidfile that names a live process', async () => {
  const first = await Berthd.start();
  try {
    const second = Berthd.spawn({ args: ['--pidfile', first.pidfile] });
    const { code } = await second.exited;
    assert.equal(code, 1);
    assert.match(second.log, /pid file found, ensure berthd is not running/);
  } finally {
    await first.stop();
  }
});
