// The container endpoints through the CLI and the API: create and its name rules, ps with
// filters, inspect, rename, pause, restart, wait, attach, rm, prune, and their errors as dockerd's.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Berthd } from '../../helpers/berthd.js';
import { inspectContainer, startWithBusybox, teardown } from '../../helpers/containers.js';

const json = (text: string) => JSON.parse(text) as Record<string, unknown>;

describe('container lifecycle', () => {
  let d: Berthd;
  before(async () => {
    d = await startWithBusybox();
  });
  after(async () => {
    await teardown(d);
  });

  const inspect = (ref: string) => inspectContainer(d, ref);

  test('create: a missing image is 404, a taken name 409, a bad name 400; nothing is left behind', async () => {
    const missing = await d.request('POST', '/containers/create', { json: { Image: 'nosuch' } });
    assert.equal(missing.status, 404);
    assert.equal(json(missing.body).message, 'No such image: nosuch:latest');
    const first = await d.request('POST', '/containers/create?name=taken', { json: { Image: 'busybox', Cmd: ['true'] } });
    assert.equal(first.status, 201, first.body);
    const { Id, Warnings } = json(first.body) as { Id: string; Warnings: unknown };
    assert.deepEqual(Warnings, []);
    const again = await d.request('POST', '/containers/create?name=taken', { json: { Image: 'busybox', Cmd: ['true'] } });
    assert.equal(again.status, 409);
    assert.match(json(again.body).message as string, new RegExp(`The container name "/taken" is already in use by container "${Id}"`));
    const bad = await d.request('POST', '/containers/create?name=b%40d', { json: { Image: 'busybox', Cmd: ['true'] } });
    assert.equal(bad.status, 400);
    const noCmd = await d.request('POST', '/containers/create', { json: { Image: 'busybox', Cmd: [], Entrypoint: [''] } });
    assert.equal(noCmd.status, 400);
    assert.equal(json(noCmd.body).message, 'No command specified');
    const all = json((await d.request('GET', '/containers/json?all=1')).body) as unknown as unknown[];
    assert.equal(all.length, 1);
    assert.equal((await d.docker(['rm', 'taken'])).code, 0);
  });

  test('start twice is 304, stop twice 304, kill of a stopped one 409, unknown 404', async () => {
    const id = (await d.docker(['create', 'busybox', 'sleep', '300'])).stdout.trim();
    assert.equal((await d.request('POST', `/containers/${id}/start`)).status, 204);
    assert.equal((await d.request('POST', `/containers/${id}/start`)).status, 304);
    assert.equal((await d.request('POST', `/containers/${id}/stop?t=0`)).status, 204);
    assert.equal((await d.request('POST', `/containers/${id}/stop`)).status, 304);
    const kill = await d.request('POST', `/containers/${id}/kill`);
    assert.equal(kill.status, 409);
    assert.equal(json(kill.body).message, `Container ${id} is not running`);
    const unknown = await d.request('POST', '/containers/nosuch/start');
    assert.equal(unknown.status, 404);
    assert.equal(json(unknown.body).message, 'No such container: nosuch');
    const badSignal = await d.request('POST', `/containers/${id}/kill?signal=FOO`);
    assert.equal(badSignal.status, 400);
    await d.docker(['rm', id]);
  });

  test('ps: running only without -a; filters name, label, status, exited, ancestor, id, before/since', async () => {
    const a = (await d.docker(['run', '-d', '--name', 'ps-a', '--label', 'team=x', 'busybox', 'sleep', '300'])).stdout.trim();
    const b = (await d.docker(['run', '--name', 'ps-b', '--label', 'team=y', 'busybox', 'sh', '-c', 'exit 2'])).stdout.trim();
    void b;
    const names = async (...args: string[]) => (await d.docker(['ps', ...args, '--format', '{{.Names}}'])).stdout.trim().split('\n').filter((l) => l !== '').sort();
    assert.deepEqual(await names(), ['ps-a']);
    assert.deepEqual(await names('-a'), ['ps-a', 'ps-b']);
    assert.deepEqual(await names('-a', '--filter', 'label=team=y'), ['ps-b']);
    assert.deepEqual(await names('-a', '--filter', 'label=team'), ['ps-a', 'ps-b']);
    assert.deepEqual(await names('--filter', 'status=exited'), ['ps-b']);
    assert.deepEqual(await names('-a', '--filter', 'exited=2'), ['ps-b']);
    assert.deepEqual(await names('-a', '--filter', 'exited=0'), []);
    assert.deepEqual(await names('-a', '--filter', 'name=ps-'), ['ps-a', 'ps-b']);
    assert.deepEqual(await names('-a', '--filter', `id=${a.slice(0, 10)}`), ['ps-a']);
    assert.deepEqual(await names('-a', '--filter', 'ancestor=busybox'), ['ps-a', 'ps-b']);
    assert.deepEqual(await names('-a', '--filter', 'since=ps-a'), ['ps-b']);
    assert.deepEqual(await names('-a', '--filter', 'before=ps-b'), ['ps-a']);
    const status = (await d.docker(['ps', '-a', '--filter', 'name=ps-b', '--format', '{{.Status}}'])).stdout.trim();
    assert.match(status, /^Exited \(2\) (Less than a second|\d+ seconds?) ago$/);
    const bad = await d.request('GET', `/containers/json?filters=${encodeURIComponent('{"status":["nope"]}')}`);
    assert.equal(bad.status, 400);
    assert.equal(json(bad.body).message, "Invalid filter 'status=nope'");
    await d.docker(['rm', '-f', 'ps-a', 'ps-b']);
  });

  test('inspect: state, config echoed with the image\'s merged in, paths', async () => {
    const id = (await d.docker(['run', '-d', '--name', 'insp', '-e', 'A=1', '--label', 'l=v', '-w', '/tmp', '-h', 'myhost', 'busybox', 'sleep', '300'])).stdout.trim();
    const c = await inspect(id);
    assert.equal(c.Name, '/insp');
    assert.equal(c.Path, 'sleep');
    assert.deepEqual(c.Args, ['300']);
    assert.equal(c.State.Status, 'running');
    assert.equal(c.State.Running, true);
    assert.ok(c.State.Pid > 0);
    assert.match(c.State.StartedAt, /^\d{4}-\d\d-\d\dT/);
    assert.equal(c.Config.Hostname, 'myhost');
    assert.equal(c.Config.WorkingDir, '/tmp');
    assert.deepEqual(c.Config.Labels, { l: 'v' });
    assert.ok((c.Config.Env as string[]).includes('A=1'));
    assert.ok((c.Config.Env as string[]).some((e) => e.startsWith('PATH=')), 'the image\'s PATH is merged in');
    assert.equal(c.HostConfig.RestartPolicy.Name, 'no');
    assert.equal(c.Image.startsWith('sha256:'), true);
    assert.equal(c.Driver, 'overlay2');
    assert.match(c.LogPath, new RegExp(`${id}`));
    const sized = json((await d.request('GET', `/containers/${id}/json?size=1`)).body);
    assert.equal(typeof sized.SizeRw, 'number');
    assert.ok((sized.SizeRootFs as number) > 1_000_000);
    await d.docker(['rm', '-f', id]);
    assert.equal((await d.request('GET', `/containers/${id}/json`)).status, 404);
  });

  test('rename, pause and unpause, restart, rm without and with force', async () => {
    const id = (await d.docker(['run', '-d', '--name', 'before', 'busybox', 'sleep', '300'])).stdout.trim();
    assert.equal((await d.docker(['rename', 'before', 'after'])).code, 0);
    assert.equal((await inspect(id)).Name, '/after');
    assert.equal((await d.docker(['pause', 'after'])).code, 0);
    assert.equal((await inspect(id)).State.Status, 'paused');
    assert.match((await d.docker(['ps', '--format', '{{.Status}}', '--filter', 'name=after'])).stdout, /\(Paused\)/);
    const rmPaused = await d.request('DELETE', `/containers/${id}`);
    assert.equal(rmPaused.status, 409);
    assert.equal((await d.docker(['unpause', 'after'])).code, 0);
    const pid = (await inspect(id)).State.Pid;
    assert.equal((await d.docker(['restart', '-t', '0', 'after'])).code, 0);
    const restarted = await inspect(id);
    assert.equal(restarted.State.Status, 'running');
    assert.notEqual(restarted.State.Pid, pid);
    const rm = await d.docker(['rm', 'after']);
    assert.notEqual(rm.code, 0);
    assert.match(rm.stderr, /You cannot remove a running container/);
    assert.equal((await d.docker(['rm', '-f', 'after'])).code, 0);
    assert.equal((await d.docker(['ps', '-aq'])).stdout.trim(), '');
  });

  test("kill with SIGKILL answers once the container has stopped (docker-py's kill() then remove(); top after docker kill)", async () => {
    const run = async (...cmd: string[]) => (await d.docker(['run', '-d', 'busybox', ...cmd])).stdout.trim();
    const first = await run('sleep', '300');
    assert.equal((await d.request('POST', `/containers/${first}/kill`)).status, 204);
    assert.equal((await d.request('DELETE', `/containers/${first}`)).status, 204);

    const second = await run('sleep', '300');
    assert.equal((await d.docker(['kill', '--signal', 'KILL', second])).code, 0);
    const top = await d.request('GET', `/containers/${second}/top`);
    assert.equal(top.status, 409);
    assert.equal(json(top.body).message, `Container ${second} is not running`);
    assert.equal((await inspect(second)).State.Status, 'exited');

    // other signals answer at once: this one is ignored, and the container runs on
    const third = await run('sh', '-c', 'trap "" USR1; while true; do sleep 1; done');
    assert.equal((await d.request('POST', `/containers/${third}/kill?signal=USR1`)).status, 204);
    assert.equal((await inspect(third)).State.Status, 'running');
    await d.docker(['rm', '-f', second, third]);
  });

  test('unpause of a container that is not paused is a 409 every time', async () => {
    const id = (await d.docker(['run', '-d', 'busybox', 'sleep', '300'])).stdout.trim();
    const notPaused = async () => {
      const r = await d.request('POST', `/containers/${id}/unpause`);
      assert.equal(r.status, 409);
      assert.equal(json(r.body).message, `Container ${id} is not paused`);
    };
    await notPaused();
    assert.equal((await d.request('POST', `/containers/${id}/pause`)).status, 204);
    assert.equal((await d.request('POST', `/containers/${id}/unpause`)).status, 204);
    await notPaused();
    await d.docker(['rm', '-f', id]);
  });

  test('wait with conditions', async () => {
    const id = (await d.docker(['create', 'busybox', 'sh', '-c', 'exit 5'])).stdout.trim();
    const waiting = d.request('POST', `/containers/${id}/wait?condition=next-exit`, { timeoutMs: 30000 });
    assert.equal((await d.docker(['start', id])).code, 0);
    const w = await waiting;
    assert.equal(w.status, 200);
    assert.deepEqual(json(w.body), { Error: null, StatusCode: 5 });
    const notRunning = await d.request('POST', `/containers/${id}/wait`);
    assert.deepEqual(json(notRunning.body), { Error: null, StatusCode: 5 });
    const removed = d.request('POST', `/containers/${id}/wait?condition=removed`, { timeoutMs: 30000 });
    await d.docker(['rm', id]);
    assert.equal(json((await removed).body).StatusCode, 5);
  });

  test('attach to a running container: its output, its stdin, and its exit code', async () => {
    const out = (await d.docker(['run', '-d', 'busybox', 'sh', '-c', 'sleep 2; echo attached; exit 5'])).stdout.trim();
    const a = await d.docker(['attach', out]);
    assert.equal(a.stdout, 'attached\n');
    assert.equal(a.code, 5);
    // the end of the client's stdin ends the attach (no StdinOnce); the exit code says what was read
    const input = (await d.docker(['run', '-d', '-i', 'busybox', 'sh', '-c', 'read x; test "$x" = hello && exit 5; exit 1'])).stdout.trim();
    const i = await d.docker(['attach', input], { input: 'hello\n' });
    assert.equal(i.code, 5, i.stderr);
    const stopped = await d.docker(['attach', input]);
    assert.notEqual(stopped.code, 0);
    assert.match(stopped.stderr, /You cannot attach to a stopped container/);
    await d.docker(['rm', out, input]);
  });

  test('prune removes stopped containers only', async () => {
    const running = (await d.docker(['run', '-d', 'busybox', 'sleep', '300'])).stdout.trim();
    const stopped = (await d.docker(['run', '-d', 'busybox', 'true'])).stdout.trim();
    await d.docker(['wait', stopped]);
    const since = (Date.now() / 1000).toFixed(3);
    const r = await d.request('POST', '/containers/prune');
    assert.equal(r.status, 200);
    assert.deepEqual(json(r.body).ContainersDeleted, [stopped]);
    // destroy for each, then prune with what it freed, as dockerd
    const events = await d.docker(['events', '--since', since, '--until', String(Math.ceil(Date.now() / 1000)), '--filter', 'type=container', '--format', '{{.Action}} {{.Actor.ID}}']);
    assert.match(events.stdout, new RegExp(`^destroy ${stopped}\nprune \n$`));
    assert.equal((await d.docker(['ps', '-aq', '--no-trunc'])).stdout.trim(), running);
    await d.docker(['rm', '-f', running]);
  });

  test('an image used by a container cannot be deleted without force, nor with it while it runs', async () => {
    const id = (await d.docker(['run', '-d', 'busybox', 'sleep', '300'])).stdout.trim();
    const rmi = await d.docker(['rmi', 'busybox']);
    assert.notEqual(rmi.code, 0);
    assert.match(rmi.stderr, /is using its referenced image/);
    const byId = await d.request('DELETE', `/images/${(await inspect(id)).Image}?force=1`);
    assert.equal(byId.status, 409);
    assert.match(json(byId.body).message as string, /being used by running container/);
    await d.docker(['rm', '-f', id]);
  });
});
