import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Berthd } from '../../helpers/berthd.js';

it('two daemons on two data roots run side by side', async () => {
  const [a, b] = await Promise.all([Berthd.start(), Berthd.start()]);
  try {
    const [ia, ib] = await Promise.all([a.request('GET', '/info'), b.request('GET', '/info')]);
    const [ja, jb] = [ia.json() as { ID: string; DockerRootDir: string }, ib.json() as { ID: string; DockerRootDir: string }];
    assert.equal(ja.DockerRootDir, a.dataRoot);
    assert.equal(jb.DockerRootDir, b.dataRoot);
    assert.notEqual(ja.ID, jb.ID);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
});

it('a second daemon on the same data root refuses to start, naming the first', async () => {
  const first = await Berthd.start();
  try {
    const second = Berthd.spawn({ dataRoot: first.dataRoot });
    const { code } = await second.exited;
    assert.equal(code, 1);
    assert.match(second.log, new RegExp(`the data root ${first.dataRoot} is in use by another berthd \\(pid ${first.proc.pid}\\)`));
    // the first one is untouched
    assert.equal((await first.request('GET', '/_ping')).status, 200);
  } finally {
    await first.stop();
  }
});

it('the lock is freed when the holder is killed with SIGKILL', async () => {
  const first = await Berthd.start();
  await first.stop('SIGKILL');
  const second = await Berthd.start({ dataRoot: first.dataRoot });
  try {
    assert.equal((await second.request('GET', '/_ping')).status, 200);
  } finally {
    await second.stop();
  }
});

it('a daemon refuses a socket that another live daemon serves', async () => {
  const first = await Berthd.start();
  try {
    const second = Berthd.spawn({ noDefaultHost: true, args: ['-H', first.dockerHost] });
    const { code } = await second.exited;
    assert.equal(code, 1);
    assert.match(second.log, /the socket .* is in use by another daemon/);
    assert.equal((await first.request('GET', '/_ping')).status, 200);
  } finally {
    await first.stop();
  }
});
