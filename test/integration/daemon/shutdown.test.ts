import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { Berthd, tempDir } from '../../helpers/berthd.js';
import { until } from '../../helpers/until.js';

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

describe('a pidfile left by a crash does not block the restart', () => {
  it('when it names a process that is gone', async () => {
    const gone = spawnSync('true').pid;
    const pidfile = path.join(tempDir(), 'berthd.pid');
    writeFileSync(pidfile, `${gone}`);
    const d = await Berthd.start({ args: ['--pidfile', pidfile], netns: 'own' });
    assert.equal(readFileSync(pidfile, 'utf8'), String(d.proc.pid));
    await d.stop();
  });

  it('when it names a zombie', async () => {
    // the child ends once told (a byte on fd 3), after its parent has become `sleep 30`, which never
    // reaps it: a shell still there could reap it first
    const parent = spawn('sh', ['-c', 'head -c1 <&3 >/dev/null & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore', 'pipe'] });
    try {
      const zombie = Number((await once(parent.stdout!, 'data'))[0].toString().trim());
      await until('the shell to become sleep', () => readFileSync(`/proc/${parent.pid}/comm`, 'utf8'), (comm) => comm.trim() === 'sleep');
      (parent.stdio[3] as Writable).end('x');
      await until('the child to be a zombie', () => readFileSync(`/proc/${zombie}/stat`, 'utf8'), (stat) => stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z'));
      const pidfile = path.join(tempDir(), 'berthd.pid');
      writeFileSync(pidfile, `${zombie}`);
      const d = await Berthd.start({ args: ['--pidfile', pidfile], netns: 'own' });
      assert.equal(readFileSync(pidfile, 'utf8'), String(d.proc.pid));
      await d.stop();
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
