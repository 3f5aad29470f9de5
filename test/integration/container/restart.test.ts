// Restart policies, AutoRemove, and a daemon restart (clean and kill -9) that loses nothing:
// running containers are adopted, those that ended meanwhile show their real exit, root
// filesystems made before it mount again with their init layer.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Berthd } from '../../helpers/berthd.js';
import { inspectContainer, startWithBusybox, sweep, teardown } from '../../helpers/containers.js';
import { untilDefined as until } from '../../helpers/until.js';

describe('restart policies', () => {
  let d: Berthd;
  before(async () => {
    d = await startWithBusybox();
  });
  after(async () => {
    await teardown(d);
  });

  const state = async (ref: string) => {
    const c = await inspectContainer(d, ref);
    return { status: c.State.Status as string, restarts: c.RestartCount as number, exitCode: c.State.ExitCode as number };
  };

  test('on-failure:2 restarts a failing container twice, then leaves it exited', async () => {
    await d.docker(['run', '-d', '--name', 'onfail', '--restart', 'on-failure:2', 'busybox', 'sh', '-c', 'exit 4']);
    const s = await until('two restarts and an exit', async () => {
      const s = await state('onfail');
      return s.restarts === 2 && s.status === 'exited' ? s : undefined;
    });
    assert.equal(s.exitCode, 4);
    // a user's start begins the policy afresh (dockerd resets the count): it restarts twice more
    const since = (Date.now() / 1000).toFixed(3);
    assert.equal((await d.docker(['start', 'onfail'])).code, 0);
    await until('two more restarts', async () => {
      const events = await d.docker(['events', '--since', String(since), '--until', String(Math.ceil(Date.now() / 1000)), '--filter', 'container=onfail', '--filter', 'event=start', '--format', '{{.Action}}']);
      const again = await state('onfail');
      return events.stdout.trim().split('\n').length === 3 && again.status === 'exited' && again.restarts === 2 ? true : undefined;
    });
  });

  test('on-failure leaves a successful exit alone; always restarts it', async () => {
    await d.docker(['run', '-d', '--name', 'ok-once', '--restart', 'on-failure', 'busybox', 'true']);
    await d.docker(['run', '-d', '--name', 'always', '--restart', 'always', 'busybox', 'sh', '-c', 'sleep 0.2']);
    await until('always to restart', async () => ((await state('always')).restarts >= 2 ? true : undefined));
    const once = await state('ok-once');
    assert.equal(once.status, 'exited');
    assert.equal(once.restarts, 0);
  });

  test('a manual stop is not restarted', async () => {
    await d.docker(['run', '-d', '--name', 'manual', '--restart', 'always', 'busybox', 'sleep', '300']);
    assert.equal((await d.docker(['stop', '-t', '0', 'manual'])).code, 0);
    await new Promise((r) => setTimeout(r, 500));
    const s = await state('manual');
    assert.equal(s.status, 'exited');
    assert.equal(s.restarts, 0);
  });

  test('AutoRemove removes the container after it exits; it cannot go with a restart policy', async () => {
    const id = (await d.docker(['run', '-d', '--rm', 'busybox', 'true'])).stdout.trim();
    await until('the removal', async () => ((await d.request('GET', `/containers/${id}/json`)).status === 404 ? true : undefined));
    const both = await d.docker(['run', '-d', '--rm', '--restart', 'always', 'busybox', 'true']);
    assert.notEqual(both.code, 0);
  });
});

describe('daemon restart', () => {
  let d: Berthd;
  after(async () => {
    await teardown(d);
  });

  for (const how of ['SIGTERM', 'SIGKILL'] as const) {
    test(`after ${how}, running containers are adopted and exits that happened meanwhile are real`, async () => {
      d = await startWithBusybox();
      const dataRoot = d.dataRoot;
      const socket = d.socket;
      const long = (await d.docker(['run', '-d', '--name', 'long', 'busybox', 'sh', '-c', 'echo before; sleep 300'])).stdout.trim();
      const short = (await d.docker(['run', '-d', '--name', 'short', 'busybox', 'sh', '-c', 'sleep 1; exit 7'])).stdout.trim();
      const created = (await d.docker(['create', '--name', 'made', 'busybox', 'true'])).stdout.trim();
      await d.stop(how);
      // the daemon is gone; the short one ends while nobody watches
      await new Promise((r) => setTimeout(r, 1500));
      const old = d;
      d = await Berthd.start({ dataRoot, socket, execRoot: `${old.dir}/exec`, netns: old.netns });
      const ps = (await d.docker(['ps', '-a', '--format', '{{.Names}} {{.State}}'])).stdout.trim().split('\n').sort();
      assert.deepEqual(ps, ['long running', 'made created', 'short exited']);
      const s = JSON.parse((await d.docker(['inspect', short])).stdout)[0].State;
      assert.equal(s.ExitCode, 7);
      assert.notEqual(s.FinishedAt, '0001-01-01T00:00:00Z');
      assert.equal((await d.docker(['logs', long])).stdout, 'before\n');
      const waiting = d.docker(['wait', long]);
      assert.equal((await d.docker(['stop', '-t', '0', long])).code, 0);
      assert.equal((await waiting).stdout.trim(), '137');
      await d.docker(['rm', long, short, created]);
      await teardown(d);
      // the first daemon's directory holds the exec root the containers ran from
      sweep(old.dir);
    });
  }

  test('a container made before the restart runs again over its init layer, and its diff is its own', async () => {
    d = await startWithBusybox();
    const { dataRoot, socket } = d;
    const id = (await d.docker(['create', 'busybox', 'sh', '-c', 'test -f /.dockerenv && touch /tmp/mark'])).stdout.trim();
    assert.equal((await d.docker(['start', '-a', id])).code, 0);
    await d.stop('SIGTERM');
    const old = d;
    d = await Berthd.start({ dataRoot, socket, execRoot: `${old.dir}/exec`, netns: old.netns });
    const again = await d.docker(['start', '-a', id]);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual((await d.docker(['diff', id])).stdout.split('\n').filter(Boolean).sort(), ['A /tmp/mark', 'C /tmp']);
    await d.docker(['rm', id]);
    await teardown(d);
    sweep(old.dir);
  });
});
