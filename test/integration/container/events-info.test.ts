// Container events through `docker events` (create, start, attach, pause, unpause, rename, kill,
// die, stop, restart, destroy, health_status, oom), in Docker 20.10's order and with its attributes;
// and the container counts of /info and the Containers of /system/df.
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Berthd } from '../../helpers/berthd.js';
import { inspectContainer, startWithBusybox, teardown } from '../../helpers/containers.js';

// conmon (all versions) also creates a file "oom" in its working directory when its container
// hits the OOM killer: berthd's, which is this test's
const strayOom = path.join(process.cwd(), 'oom');

describe('container events, /info and /system/df', () => {
  let d: Berthd;
  let hadStrayOom = false;
  before(async () => {
    hadStrayOom = existsSync(strayOom);
    d = await startWithBusybox();
  });
  after(async () => {
    await teardown(d);
    if (!hadStrayOom) rmSync(strayOom, { force: true });
  });

  const nowS = () => Math.floor(Date.now() / 1000);

  /** `docker events` for one container since `since`: "action attr=value ..." lines (image left out). */
  async function eventsOf(ref: string, since: number): Promise<string[]> {
    const r = await d.docker([
      'events', '--since', String(since), '--until', String(nowS() + 1), '--filter', 'type=container', '--filter', `container=${ref}`,
      '--format', '{{.Action}}{{range $k, $v := .Actor.Attributes}}{{if ne $k "image"}} {{$k}}={{$v}}{{end}}{{end}}',
    ]);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout.trim().split('\n').filter((l) => l !== '');
  }

  test('run -d, pause, unpause, rename, kill -s USR1, stop, rm: each event with its attributes', async () => {
    const since = nowS() - 1;
    const id = (await d.docker(['run', '-d', '--name', 'ev-a', '--label', 'team=x', 'busybox', 'sleep', '300'])).stdout.trim();
    for (const args of [['pause', 'ev-a'], ['unpause', 'ev-a'], ['rename', 'ev-a', 'ev-b'], ['kill', '-s', 'USR1', 'ev-b'], ['stop', '-t', '1', 'ev-b'], ['rm', 'ev-b']]) {
      const r = await d.docker(args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    }
    assert.deepEqual(await eventsOf(id, since), [
      'create name=ev-a team=x',
      'start name=ev-a team=x',
      'pause name=ev-a team=x',
      'unpause name=ev-a team=x',
      'rename name=ev-b oldName=/ev-a team=x',
      // sleep as pid 1 has no handler for USR1 or TERM: stop has to kill it
      'kill name=ev-b signal=10 team=x',
      'kill name=ev-b signal=15 team=x',
      'kill name=ev-b signal=9 team=x',
      'die exitCode=137 name=ev-b team=x',
      'stop name=ev-b team=x',
      'destroy name=ev-b team=x',
    ]);
    // the image is an attribute too, and the CLI's own formatting shows the container's ID
    const full = await d.docker(['events', '--since', String(since), '--until', String(nowS() + 1), '--filter', `container=${id}`, '--filter', 'event=create']);
    assert.match(full.stdout, new RegExp(`container create ${id} \\(image=busybox, name=ev-a, team=x\\)`));
  });

  test('docker run (attached): create, attach, start, die with the exit code; --rm adds destroy', async () => {
    const since = nowS() - 1;
    assert.equal((await d.docker(['run', '--name', 'ev-run', 'busybox', 'sh', '-c', 'exit 3'])).code, 3);
    assert.deepEqual(await eventsOf('ev-run', since), ['create name=ev-run', 'attach name=ev-run', 'start name=ev-run', 'die exitCode=3 name=ev-run']);
    assert.equal((await d.docker(['rm', 'ev-run'])).code, 0);
    assert.equal((await d.docker(['run', '--rm', '--name', 'ev-rm', 'busybox', 'true'])).code, 0);
    assert.deepEqual(await eventsOf('ev-rm', since), ['create name=ev-rm', 'attach name=ev-rm', 'start name=ev-rm', 'die exitCode=0 name=ev-rm', 'destroy name=ev-rm']);
  });

  test(
    'restart: kill, die, stop, start, restart (as Docker 20.10)',
    async () => {
      const id = (await d.docker(['run', '-d', '--name', 'ev-restart', 'busybox', 'sleep', '300'])).stdout.trim();
      try {
        const since = nowS();
        assert.equal((await d.docker(['restart', '-t', '1', id])).code, 0);
        const events = await eventsOf(id, since);
        assert.deepEqual(events.slice(events.indexOf('kill name=ev-restart signal=15')), [
          'kill name=ev-restart signal=15',
          'kill name=ev-restart signal=9',
          'die exitCode=137 name=ev-restart',
          'stop name=ev-restart',
          'start name=ev-restart',
          'restart name=ev-restart',
        ]);
      } finally {
        await d.docker(['rm', '-f', id]);
      }
    },
  );

  test('restart: kill, die, start and restart in that order, and it runs again', async () => {
    const id = (await d.docker(['run', '-d', '--name', 'ev-restart2', 'busybox', 'sleep', '300'])).stdout.trim();
    try {
      const since = nowS() - 1;
      assert.equal((await d.docker(['restart', '-t', '1', id])).code, 0);
      const events = (await eventsOf(id, since)).slice(2);
      assert.deepEqual(events.filter((e) => e !== 'stop name=ev-restart2'), [
        'kill name=ev-restart2 signal=15',
        'kill name=ev-restart2 signal=9',
        'die exitCode=137 name=ev-restart2',
        'start name=ev-restart2',
        'restart name=ev-restart2',
      ]);
      assert.equal((await inspectContainer(d, id)).State.Running, true);
    } finally {
      await d.docker(['rm', '-f', id]);
    }
  });

  test('health_status: healthy, then unhealthy', async () => {
    const since = nowS() - 1;
    const id = (
      await d.docker(['run', '-d', '--name', 'ev-health', '--health-cmd', 'test ! -f /tmp/bad', '--health-interval', '300ms', '--health-retries', '1', 'busybox', 'sh', '-c', 'sleep 2; touch /tmp/bad; sleep 300'])
    ).stdout.trim();
    try {
      let health: string[] = [];
      for (let i = 0; i < 100 && !health.includes('health_status: unhealthy name=ev-health'); i++) {
        await new Promise((r) => setTimeout(r, 100));
        health = (await eventsOf(id, since)).filter((e) => e.startsWith('health_status'));
      }
      // one event per change of status, as dockerd
      assert.deepEqual(health, ['health_status: healthy name=ev-health', 'health_status: unhealthy name=ev-health']);
    } finally {
      await d.docker(['rm', '-f', id]);
    }
  });

  test('oom: a --memory 8m container that allocates more is OOM-killed, with an oom event before die', async () => {
    // this kernel (cgroup v1, no swap) reports the kill in memory.oom_control; Docker 20.10 here says
    // OOMKilled true with exit code 137 for the same container
    const since = nowS() - 1;
    const id = (await d.docker(['run', '-d', '--name', 'ev-oom', '--memory', '8m', 'busybox', 'sh', '-c', 'x=$(head -c 64000000 /dev/zero | tr "\\0" a); echo survived'])).stdout.trim();
    try {
      assert.equal((await d.docker(['wait', id], { timeoutMs: 60000 })).stdout.trim(), '137');
      const { State } = await inspectContainer(d, id);
      assert.equal(State.OOMKilled, true);
      assert.equal(State.ExitCode, 137);
      assert.equal((await d.docker(['logs', id])).stdout, '');
      const events = await eventsOf(id, since);
      const oom = events.indexOf('oom name=ev-oom');
      assert.ok(oom >= 2, events.join('\n'));
      assert.ok(events.indexOf('die exitCode=137 name=ev-oom') > oom, events.join('\n'));
      assert.match((await d.docker(['ps', '-a', '--filter', `id=${id}`, '--format', '{{.Status}}'])).stdout, /^Exited \(137\)/);
    } finally {
      await d.docker(['rm', '-f', id]);
    }
  });

  test(
    'an OOM kill leaves no file "oom" in the daemon\'s working directory',
    async (t) => {
      if (hadStrayOom) return t.skip(`${strayOom} was there before the test`);
      rmSync(strayOom, { force: true }); // the OOM test's
      const id = (await d.docker(['run', '-d', '--memory', '8m', 'busybox', 'sh', '-c', 'x=$(head -c 64000000 /dev/zero | tr "\\0" a)'])).stdout.trim();
      try {
        assert.equal((await d.docker(['wait', id], { timeoutMs: 60000 })).stdout.trim(), '137');
        assert.equal((await inspectContainer(d, id)).State.OOMKilled, true);
        assert.equal(existsSync(strayOom), false, `${strayOom} exists`);
      } finally {
        await d.docker(['rm', '-f', id]);
        rmSync(strayOom, { force: true });
      }
    },
  );

  test('/info counts containers by state, and /system/df lists them', async () => {
    const info = async () => {
      const r = await d.request('GET', '/info');
      assert.equal(r.status, 200);
      const j = r.json() as Record<string, number>;
      return { total: j.Containers, running: j.ContainersRunning, paused: j.ContainersPaused, stopped: j.ContainersStopped };
    };
    assert.deepEqual(await info(), { total: 0, running: 0, paused: 0, stopped: 0 });
    const running = (await d.docker(['run', '-d', 'busybox', 'sleep', '300'])).stdout.trim();
    const paused = (await d.docker(['run', '-d', 'busybox', 'sleep', '300'])).stdout.trim();
    assert.equal((await d.docker(['pause', paused])).code, 0);
    const exited = (await d.docker(['run', '-d', 'busybox', 'true'])).stdout.trim();
    await d.docker(['wait', exited]);
    const created = (await d.docker(['create', 'busybox', 'true'])).stdout.trim();
    try {
      // created and exited both count as stopped
      assert.deepEqual(await info(), { total: 4, running: 1, paused: 1, stopped: 2 });
      const df = await d.request('GET', '/system/df');
      assert.equal(df.status, 200);
      const { Containers, Images } = df.json() as { Containers: Array<{ Id: string; State: string; SizeRw: number; SizeRootFs: number; Image: string }>; Images: Array<{ Containers: number }> };
      assert.deepEqual(
        Containers.map((c) => [c.Id, c.State]).sort(),
        [[running, 'running'], [paused, 'paused'], [exited, 'exited'], [created, 'created']].sort(),
      );
      for (const c of Containers) {
        assert.equal(c.Image, 'busybox');
        assert.equal(typeof c.SizeRw, 'number');
        assert.ok(c.SizeRootFs > 0);
      }
      assert.equal(Images[0].Containers, 4);
      const cli = (await d.docker(['system', 'df', '--format', '{{.Type}} {{.TotalCount}} {{.Active}}'])).stdout;
      assert.match(cli, /^Containers 4 2$/m);
    } finally {
      await d.docker(['rm', '-f', running, paused, exited, created]);
    }
    assert.deepEqual(await info(), { total: 0, running: 0, paused: 0, stopped: 0 });
  });
});
