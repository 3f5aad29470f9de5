// docker run through the real CLI: exit codes, output streams, stdin, a terminal, detached runs
// and their logs, against real runc containers under conmon.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Berthd } from '../../helpers/berthd.js';
import { inspectContainer, startWithBusybox, teardown } from '../../helpers/containers.js';
import { inTerminal } from '../../helpers/terminal.js';

describe('docker run', () => {
  let d: Berthd;
  before(async () => {
    d = await startWithBusybox();
  });
  after(async () => {
    await teardown(d);
  });

  test('--rm gives the command\'s exit code: 0, 1, 3', async () => {
    for (const code of [0, 1, 3]) {
      const r = await d.docker(['run', '--rm', 'busybox', 'sh', '-c', `exit ${code}`]);
      assert.equal(r.code, code, r.stderr);
    }
    const ps = await d.docker(['ps', '-aq']);
    assert.equal(ps.stdout.trim(), '', 'run --rm leaves no container');
  });

  test('a missing command is 127, with runc\'s words', async () => {
    const r = await d.docker(['run', '--rm', 'busybox', 'nosuchcommand']);
    assert.equal(r.code, 127, r.stderr);
    assert.match(r.stderr, /executable file not found/);
  });

  test("the init layer's files are in the container: /.dockerenv, /etc/mtab a link to /proc/mounts", async () => {
    const r = await d.docker(['run', '--rm', 'busybox', 'sh', '-c', 'test -f /.dockerenv && readlink /etc/mtab && stat -c %a /.dockerenv']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '/proc/mounts\n755\n');
  });

  test('--log-driver none: nothing to read, as dockerd says (501)', async () => {
    const id = (await d.docker(['run', '-d', '--log-driver', 'none', 'busybox', 'echo', 'hi'])).stdout.trim();
    await d.docker(['wait', id]);
    const logs = await d.docker(['logs', id]);
    assert.notEqual(logs.code, 0);
    assert.match(logs.stderr, /configured logging driver does not support reading/);
    assert.equal((await d.request('GET', `/containers/${id}/logs?stdout=1`)).status, 501);
    await d.docker(['rm', id]);
  });

  test("logs: no stream asked for is a 400 in dockerd's words, before the container is looked up", async () => {
    const r = await d.request('GET', '/containers/nosuch/logs');
    assert.equal(r.status, 400);
    assert.deepEqual(r.json(), { message: 'Bad parameters: you must choose at least one stream' });
    assert.equal((await d.request('GET', '/containers/nosuch/logs?stdout=1&since=x')).status, 404);
  });

  test('stdout and stderr stay apart', async () => {
    const r = await d.docker(['run', '--rm', 'busybox', 'sh', '-c', 'echo out; echo err >&2']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'out\n');
    assert.equal(r.stderr, 'err\n');
  });

  test('-i with stdin piped in reaches the container, and its end ends it', async () => {
    const r = await d.docker(['run', '--rm', '-i', 'busybox', 'sh', '-c', 'cat; echo done'], { input: 'hello\nworld\n' });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'hello\nworld\ndone\n');
  });

  test('-t gives a terminal (output with CRLF, as Docker)', async () => {
    const r = await d.docker(['run', '--rm', '-t', 'busybox', 'sh', '-c', 'test -t 1 && echo tty']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'tty\r\n');
  });

  test('-it: an interactive terminal (through script(1)), sized as the client\'s', async () => {
    // the CLI wants a terminal for -t with -i: script gives it one, 33 rows by 101 columns
    const r = await inTerminal(`stty rows 33 cols 101; DOCKER_HOST=${d.dockerHost} docker run -it --rm busybox sh`, ['stty size; exit 7\r']);
    assert.equal(r.code, 7, r.out);
    assert.match(r.out, /\r\n33 101\r\n/);
  });

  test('-it: ctrl-p ctrl-q detaches and leaves the shell running; attach types into it again', async () => {
    const name = 'it-detach';
    const first = await inTerminal(`DOCKER_HOST=${d.dockerHost} docker run -it --name ${name} busybox sh`, ['echo one\r', '\x10\x11']);
    assert.equal(first.code, 0, first.out);
    assert.equal((await inspectContainer(d, name)).State.Status, 'running');
    const second = await inTerminal(`DOCKER_HOST=${d.dockerHost} docker attach ${name}`, ['echo two; exit 3\r']);
    assert.equal(second.code, 3, second.out);
    assert.match(second.out, /\r\ntwo\r\n/);
    await d.docker(['rm', name]);
  });

  test('kill gives 137; SIGTERM through an init gives 143', async () => {
    const id = (await d.docker(['run', '-d', 'busybox', 'sleep', '300'])).stdout.trim();
    assert.match(id, /^[0-9a-f]{64}$/);
    assert.equal((await d.docker(['kill', id])).code, 0);
    assert.equal((await d.docker(['wait', id])).stdout.trim(), '137');
    const init = (await d.docker(['run', '-d', '--init', 'busybox', 'sleep', '300'])).stdout.trim();
    assert.equal((await d.docker(['kill', '-s', 'TERM', init])).code, 0);
    assert.equal((await d.docker(['wait', init])).stdout.trim(), '143');
    await d.docker(['rm', id, init]);
  });

  test('-d with logs -f follows until the container ends', async () => {
    const id = (await d.docker(['run', '-d', 'busybox', 'sh', '-c', 'for i in 1 2 3; do echo line $i; sleep 0.2; done; echo bye >&2'])).stdout.trim();
    const logs = await d.docker(['logs', '-f', id]);
    assert.equal(logs.code, 0, logs.stderr);
    assert.equal(logs.stdout, 'line 1\nline 2\nline 3\n');
    assert.equal(logs.stderr, 'bye\n');
    const tail = await d.docker(['logs', '--tail', '1', id]);
    assert.equal(tail.stderr, 'bye\n');
    assert.equal(tail.stdout, '');
    await d.docker(['rm', id]);
  });

  test('stop -t signals, waits, then kills: 137 for a pid 1 that ignores SIGTERM', async () => {
    const since = Math.floor(Date.now() / 1000) - 1;
    const id = (await d.docker(['run', '-d', 'busybox', 'sleep', '300'])).stdout.trim();
    assert.equal((await d.docker(['stop', '-t', '1', id])).code, 0);
    const events = await d.docker(['events', '--since', String(since), '--until', String(Math.ceil(Date.now() / 1000) + 1), '--filter', `container=${id}`, '--format', '{{.Action}} {{index .Actor.Attributes "signal"}}{{index .Actor.Attributes "exitCode"}}']);
    assert.deepEqual(events.stdout.trim().split('\n').map((l) => l.trim()), ['create', 'start', 'kill 15', 'kill 9', 'die 137', 'stop']);
    const state = JSON.parse((await d.docker(['inspect', id])).stdout)[0].State;
    assert.equal(state.Status, 'exited');
    assert.equal(state.ExitCode, 137);
    await d.docker(['rm', id]);
  });
});
