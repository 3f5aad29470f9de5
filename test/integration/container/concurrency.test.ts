// Many containers at once through the CLI (50 runs, then 50 forced removals), and many operations on
// one container at once through the API: each answers as if they ran one after the other, and the
// container ends in a state that agrees with runc and the host.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Berthd } from '../../helpers/berthd.js';
import { inspectContainer, startWithBusybox, teardown } from '../../helpers/containers.js';
import { leftovers, runcContainers, type Leftovers } from '../../helpers/leftovers.js';

const COUNT = 50;

describe('concurrency', () => {
  let d: Berthd;
  let baseline: Leftovers;
  before(async () => {
    d = await startWithBusybox();
    baseline = leftovers(d);
  });
  after(async () => {
    await teardown(d);
  });

  /** runc's view and the record agree: running with a live pid, or not running with pid 0. */
  async function assertConsistent(id: string): Promise<string> {
    const { State } = await inspectContainer(d, id);
    const inRunc = runcContainers(d).includes(id);
    if (State.Status === 'running' || State.Status === 'paused') {
      assert.ok(State.Pid > 0, `${State.Status} with pid ${State.Pid}`);
      assert.ok(inRunc, `${State.Status} but runc has no state`);
      process.kill(State.Pid, 0);
    } else {
      assert.ok(['created', 'exited'].includes(State.Status), State.Status);
      assert.equal(State.Pid, 0);
      assert.equal(State.Running, false);
      assert.ok(!inRunc, `${State.Status} but runc still has ${id}`);
    }
    return State.Status;
  }

  test(`${COUNT} docker run -d at once all succeed, with distinct names and IDs; ${COUNT} docker rm -f at once remove them all`, async () => {
    const runs = await Promise.all(Array.from({ length: COUNT }, () => d.docker(['run', '-d', 'busybox', 'sleep', '300'], { timeoutMs: 180000 })));
    for (const r of runs) assert.equal(r.code, 0, r.stderr);
    const ids = runs.map((r) => r.stdout.trim());
    for (const id of ids) assert.match(id, /^[0-9a-f]{64}$/);
    assert.equal(new Set(ids).size, COUNT);
    const ps = (await d.docker(['ps', '--no-trunc', '--format', '{{.ID}} {{.Names}} {{.Status}}'])).stdout.trim().split('\n');
    assert.equal(ps.length, COUNT);
    assert.deepEqual(ps.map((l) => l.split(' ')[0]).sort(), [...ids].sort());
    assert.equal(new Set(ps.map((l) => l.split(' ')[1])).size, COUNT, 'distinct names');
    for (const l of ps) assert.match(l, / Up /);
    assert.equal(runcContainers(d).length, COUNT);

    const removals = await Promise.all(ids.map((id) => d.docker(['rm', '-f', id], { timeoutMs: 180000 })));
    for (const r of removals) assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(removals.map((r) => r.stdout.trim()).sort(), [...ids].sort());
    assert.equal((await d.docker(['ps', '-aq'])).stdout, '');
    // conmons may take a moment to go once their container is gone
    let now = leftovers(d);
    for (let i = 0; i < 50 && now.conmons.length > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      now = leftovers(d);
    }
    assert.deepEqual(now, baseline);
  });

  test('concurrent start, stop, restart, kill, pause, unpause on one container: only the answers of some order, and a consistent end', async () => {
    const id = (await d.docker(['create', 'busybox', 'sleep', '300'])).stdout.trim();
    try {
      for (let round = 0; round < 5; round++) {
        const ops = ['start', 'stop?t=0', 'start', 'restart?t=0', 'kill', 'start', 'stop?t=0', 'pause', 'unpause'];
        const answers = await Promise.all(ops.map((op) => d.request('POST', `/containers/${id}/${op}`, { timeoutMs: 60000 })));
        answers.forEach((a, i) => assert.ok([204, 304, 409].includes(a.status), `round ${round}, ${ops[i]}: ${a.status} ${a.body}`));
        await assertConsistent(id);
      }
      // and it still works normally
      await d.request('POST', `/containers/${id}/unpause`);
      await d.request('POST', `/containers/${id}/stop?t=0`);
      assert.equal((await d.request('POST', `/containers/${id}/start`)).status, 204);
      assert.equal(await assertConsistent(id), 'running');
    } finally {
      await d.docker(['rm', '-f', id]);
    }
  });

  test('concurrent stops of a running container: one stops it, the others get 204 or 304, one die event', async () => {
    const since = Math.floor(Date.now() / 1000) - 1;
    const id = (await d.docker(['run', '-d', 'busybox', 'sleep', '300'])).stdout.trim();
    try {
      const answers = await Promise.all(Array.from({ length: 8 }, () => d.request('POST', `/containers/${id}/stop?t=1`, { timeoutMs: 60000 })));
      for (const a of answers) assert.ok([204, 304].includes(a.status), `${a.status} ${a.body}`);
      assert.ok(answers.some((a) => a.status === 204));
      assert.equal(await assertConsistent(id), 'exited');
      const events = await d.docker(['events', '--since', String(since), '--until', String(Math.ceil(Date.now() / 1000) + 1), '--filter', `container=${id}`, '--filter', 'event=die', '--format', '{{.Action}}']);
      assert.equal(events.stdout, 'die\n');
    } finally {
      await d.docker(['rm', '-f', id]);
    }
  });

  test('concurrent rm -f and start of one container: it is gone, and nothing is left', async () => {
    for (let round = 0; round < 5; round++) {
      const id = (await d.docker(['create', 'busybox', 'sleep', '300'])).stdout.trim();
      const [start, rm, start2] = await Promise.all([
        d.request('POST', `/containers/${id}/start`, { timeoutMs: 60000 }),
        d.request('DELETE', `/containers/${id}?force=1`, { timeoutMs: 60000 }),
        d.request('POST', `/containers/${id}/start`, { timeoutMs: 60000 }),
      ]);
      assert.equal(rm.status, 204, rm.body);
      // a start after the removal finds nothing; one before it ran and was stopped by the removal
      for (const s of [start, start2]) assert.ok([204, 304, 404, 409].includes(s.status), `start: ${s.status} ${s.body}`);
      assert.equal((await d.request('GET', `/containers/${id}/json`)).status, 404);
    }
    let now = leftovers(d);
    for (let i = 0; i < 50 && now.conmons.length > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      now = leftovers(d);
    }
    assert.deepEqual(now, baseline);
  });

  test('concurrent renames of one container to different names: each 204 or 409, one name wins', async () => {
    const id = (await d.docker(['create', '--name', 'orig', 'busybox', 'true'])).stdout.trim();
    try {
      const names = Array.from({ length: 10 }, (_, i) => `renamed-${i}`);
      const answers = await Promise.all(names.map((n) => d.request('POST', `/containers/${id}/rename?name=${n}`)));
      for (const a of answers) assert.equal(a.status, 204, a.body);
      const { Name } = await inspectContainer(d, id);
      assert.ok(names.map((n) => `/${n}`).includes(Name), Name);
      // the names it passed through are free again
      for (const n of names.filter((n) => `/${n}` !== Name)) assert.equal((await d.request('GET', `/containers/${n}/json`)).status, 404, n);
      assert.equal((await d.request('GET', '/containers/orig/json')).status, 404);
    } finally {
      await d.docker(['rm', '-f', id]);
    }
  });
});
