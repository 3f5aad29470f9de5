// What a kill -9 of berthd can leave, put back in order at the next start: the states the crash
// harness (test/crash) found, made here on purpose, each by killing a daemon and leaving its data
// and exec roots as the kill would have at a worse moment (a record not yet saved, a removal cut
// midway), then starting a new daemon on them.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { Berthd } from '../../helpers/berthd.js';
import { inspectContainer, startWithBusybox, sweep, teardown } from '../../helpers/containers.js';
import { conmonsOf, mountsUnder } from '../../helpers/leftovers.js';
import { execIn } from '../../helpers/netns.js';

/** A new berthd on the roots, socket and namespace of one killed. */
function restartOn(old: Berthd): Promise<Berthd> {
  return Berthd.start({ dataRoot: old.dataRoot, socket: old.socket, execRoot: path.join(old.dir, 'exec'), netns: old.netns });
}

function editRecord(d: Berthd, id: string, edit: (record: { state: { status: string } }) => void): void {
  const file = path.join(d.dataRoot, 'containers', id, 'container.json');
  const record = JSON.parse(readFileSync(file, 'utf8')) as { state: { status: string } };
  edit(record);
  writeFileSync(file, JSON.stringify(record));
}

describe('a restart after a kill', () => {
  const daemons: Berthd[] = [];
  after(async () => {
    for (const d of daemons.reverse()) {
      if (d.proc.exitCode === null && d.proc.signalCode === null) await teardown(d);
      sweep(d.dir);
    }
  });

  it('clears a start the kill cut short: no conmon, runc container, mount or namespace is left, and the container starts', async () => {
    const first = await startWithBusybox();
    daemons.push(first);
    const id = (await first.docker(['run', '-d', 'busybox', 'sleep', '300'])).stdout.trim();
    await first.stop('SIGKILL');
    // killed after runc started the container, before the record said so
    editRecord(first, id, (r) => (r.state.status = 'created'));
    const d = await restartOn(first);
    daemons.push(d);
    assert.equal((await inspectContainer(d, id)).State.Status, 'created');
    assert.deepEqual(conmonsOf(first), []);
    assert.ok(!existsSync(path.join(first.dir, 'exec', 'runc', id)), 'runc state left');
    assert.deepEqual(mountsUnder(path.join(first.dataRoot, 'rootfs', id)), []);
    assert.ok(!existsSync(path.join(first.dir, 'exec', 'netns', id)), 'network namespace left');
    const veths = execIn(d.netns!, 'ip', ['-br', 'link', 'show', 'type', 'veth']).trim();
    assert.equal(veths, '');
    const start = await d.docker(['start', id]);
    assert.equal(start.code, 0, start.stderr);
    assert.equal((await inspectContainer(d, id)).State.Status, 'running');
    await d.docker(['rm', '-f', id]);
    await teardown(d);
  });

  it('settles pauses a kill cut: a commit\'s is undone, so is one runc made and the record never said; a user\'s stays', async () => {
    const first = await startWithBusybox();
    daemons.push(first);
    const run = async () => (await first.docker(['run', '-d', 'busybox', 'sleep', '300'])).stdout.trim();
    const [committed, commitUnpaused, pauseNotSaved, paused] = [await run(), await run(), await run(), await run()];
    assert.equal((await first.docker(['pause', paused])).code, 0);
    await first.stop('SIGKILL');
    const runc = (verb: string, id: string) => execFileSync('runc', ['--root', path.join(first.dir, 'exec', 'runc'), verb, id]);
    // a commit had paused it (runc's freezer and the record), then the kill
    runc('pause', committed);
    editRecord(first, committed, (r) => Object.assign(r.state, { status: 'paused', pausedForCommit: true }));
    // the commit's unpause had resumed it in runc, not yet in the record
    editRecord(first, commitUnpaused, (r) => Object.assign(r.state, { status: 'paused', pausedForCommit: true }));
    // a pause runc made, killed before the record said so
    runc('pause', pauseNotSaved);
    const d = await restartOn(first);
    daemons.push(d);
    for (const id of [committed, commitUnpaused, pauseNotSaved]) {
      assert.equal((await inspectContainer(d, id)).State.Status, 'running', id);
      const exec = await d.docker(['exec', id, 'true']);
      assert.equal(exec.code, 0, exec.stderr);
    }
    assert.equal((await inspectContainer(d, paused)).State.Status, 'paused');
    await d.docker(['rm', '-f', committed, commitUnpaused, pauseNotSaved, paused]);
    await teardown(d);
  });

  it('finishes a removal the kill cut after the root filesystem went', async () => {
    const first = await startWithBusybox();
    daemons.push(first);
    const id = (await first.docker(['create', 'busybox', 'true'])).stdout.trim();
    await first.stop('SIGKILL');
    editRecord(first, id, (r) => (r.state.status = 'removing'));
    rmSync(path.join(first.dataRoot, 'rootfs', id), { recursive: true });
    const d = await restartOn(first);
    daemons.push(d);
    assert.equal((await d.request('GET', `/containers/${id}/json`)).status, 404);
    assert.ok(!existsSync(path.join(first.dataRoot, 'containers', id)));
    await teardown(d);
  });

  it('leaves no exit file or socket folder of a removed container, an ended exec, or a container a kill removed', async () => {
    const d = await startWithBusybox();
    daemons.push(d);
    const exec = path.join(d.dir, 'exec');
    const id = (await d.docker(['run', '-d', 'busybox', 'sleep', '300'])).stdout.trim();
    // a terminal exec runs under conmon, with a socket folder of its own
    const tty = await d.docker(['exec', '-t', id, 'true']);
    assert.equal(tty.code, 0, tty.stderr);
    assert.deepEqual(readdir(path.join(exec, 's')), [id]);
    assert.equal((await d.docker(['rm', '-f', id])).code, 0);
    assert.deepEqual(readdir(path.join(exec, 'exits')), []);
    assert.deepEqual(readdir(path.join(exec, 's')), []);
    // what a removal cut by a kill after the record went leaves, and a runc call's log
    const gone = 'f'.repeat(64);
    writeFileSync(path.join(exec, 'exits', gone), '137');
    mkdirSync(path.join(exec, 's', gone));
    writeFileSync(path.join(exec, 'runc-logs', 'start-1-1.json'), '');
    await d.stop('SIGKILL');
    const again = await restartOn(d);
    daemons.push(again);
    assert.deepEqual(readdir(path.join(exec, 'exits')), []);
    assert.deepEqual(readdir(path.join(exec, 's')), []);
    assert.deepEqual(readdir(path.join(exec, 'runc-logs')), []);
    await teardown(again);
  });

  it('removes the temporary files of record writes a kill cut (the image names, a container\'s record)', async () => {
    const first = await startWithBusybox();
    daemons.push(first);
    const id = (await first.docker(['create', 'busybox', 'true'])).stdout.trim();
    await first.stop('SIGKILL');
    const left = [path.join(first.dataRoot, 'image', '.repositories.json.tmp-0123456789ab'), path.join(first.dataRoot, 'containers', id, '.container.json.tmp-0123456789ab')];
    for (const file of left) writeFileSync(file, '{"cut');
    const d = await restartOn(first);
    daemons.push(d);
    assert.deepEqual(left.filter((f) => existsSync(f)), []);
    assert.equal((await inspectContainer(d, id)).State.Status, 'created');
    await teardown(d);
  });

  it('a clean stop after a restart leaves no mount of the daemon (the namespaces\' folder the killed one bound)', async () => {
    const first = await Berthd.start({ netns: 'own' });
    daemons.push(first);
    await first.stop('SIGKILL');
    assert.deepEqual(mountsUnder(first.dir), [path.join(first.dir, 'exec', 'netns')]);
    const d = await restartOn(first);
    daemons.push(d);
    await d.stop();
    assert.deepEqual(mountsUnder(first.dir), []);
  });
});

function readdir(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}
