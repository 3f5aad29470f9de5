// Volumes across a kill -9 of berthd, restarted on the same data root, exec root and network
// namespace: the mounts of containers that ran on are kept and counted again (a tmpfs volume two
// containers share stays mounted until the second one stops), the mounts of a container that ended
// meanwhile are undone (a plugin gets its Unmount with the Mount's ID), a copy-up the crash cut
// short is not taken for a filled volume, and the records (and a bare directory made by hand) are
// found again. berthd shares the test's mount namespace, so /proc/self/mountinfo shows its mounts.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { Berthd, tempDir } from '../../helpers/berthd.js';
import { inspectContainer, startWithBusybox, sweep, teardown } from '../../helpers/containers.js';
import type { CliResult } from '../../helpers/docker-cli.js';
import { mountsUnder, alive } from '../../helpers/leftovers.js';
import { removeTestNetns } from '../../helpers/netns.js';
import { until } from '../../helpers/until.js';
import { startVolumePlugin, type VolumePlugin } from '../../helpers/volume-plugin.js';

// ---- what each test started, undone after it whatever happened ----

const daemons: Berthd[] = [];
const plugins: VolumePlugin[] = [];
const namespaces: string[] = [];

function track(d: Berthd): Berthd {
  daemons.push(d);
  return d;
}

afterEach(async () => {
  const failures: unknown[] = [];
  // the newest daemon first: it is the one that answers; the older ones' directories hold the exec root and data root
  for (const d of daemons.splice(0).reverse()) {
    try {
      if (d.proc.exitCode === null && d.proc.signalCode === null) await teardown(d);
    } catch (err) {
      failures.push(err);
    }
    sweep(d.dir);
  }
  for (const netns of new Set(namespaces.splice(0))) removeTestNetns(netns);
  for (const p of plugins.splice(0)) await p.close();
  if (failures.length > 0) throw failures[0];
});


/** A berthd with busybox in a namespace of its own, tracked. */
async function startFirst(args: string[] = []): Promise<Berthd> {
  const d = track(await startWithBusybox({ args }));
  namespaces.push(d.netns!);
  return d;
}

/** kill -9, as a crash. */
async function crash(d: Berthd): Promise<void> {
  await d.stop('SIGKILL');
}

/** The next berthd on the first one's data root, exec root, socket and namespace. */
async function restart(first: Berthd, args: string[] = []): Promise<Berthd> {
  return track(await Berthd.start({ dataRoot: first.dataRoot, socket: first.socket, execRoot: path.join(first.dir, 'exec'), netns: first.netns, args }));
}

/** Removes the containers, stops the daemon, and checks nothing stays mounted under the data root. */
async function finish(d: Berthd, dataRoot: string): Promise<void> {
  for (const c of (await d.request('GET', '/containers/json?all=1')).json() as Array<{ Id: string }>) {
    const r = await d.request('DELETE', `/containers/${c.Id}?force=1`, { timeoutMs: 30_000 });
    assert.equal(r.status, 204, r.body);
  }
  await d.stop();
  assert.deepEqual(mountsUnder(dataRoot), [], 'nothing stays mounted under the data root');
}

// ---- probes ----

function ok(r: CliResult, what = 'docker'): string {
  assert.equal(r.code, 0, `${what}: ${r.stderr}`);
  return r.stdout;
}

/** The file systems mounted exactly at `dir` in this (berthd's) mount namespace. */
function mountsAt(dir: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter((l) => l.split(' ')[4] === dir)
    .map((l) => l.split(' - ')[1].split(' ')[0]);
}

function dataDir(d: Berthd, volume: string): string {
  return path.join(d.dataRoot, 'volumes', volume, '_data');
}

interface VolumeEvent {
  Action: string;
  Actor: { ID: string; Attributes: Record<string, string> };
}

/** The volume events the daemon has told since it started. */
async function volumeEvents(d: Berthd): Promise<VolumeEvent[]> {
  const filters = encodeURIComponent(JSON.stringify({ type: ['volume'] }));
  const r = await d.request('GET', `/events?since=0&until=${(Date.now() / 1000).toFixed(3)}&filters=${filters}`);
  assert.equal(r.status, 200, r.body);
  return r.body
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as VolumeEvent);
}

function unmountsOf(events: VolumeEvent[], container: string): string[] {
  return events
    .filter((e) => e.Action === 'unmount' && e.Actor.Attributes.container === container)
    .map((e) => e.Actor.ID)
    .sort();
}

/** Processes (besides this one) whose command line names `dir`. */
function processesNaming(dir: string): Array<{ pid: number; cmdline: string }> {
  const found: Array<{ pid: number; cmdline: string }> = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.charAt(stat.lastIndexOf(')') + 2) === 'Z') continue;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmdline.includes(dir) && Number(pid) !== process.pid) found.push({ pid: Number(pid), cmdline });
    } catch {
      // gone
    }
  }
  return found;
}

/** Regular files under `dir` and their bytes, recursively. */
function contentOf(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    files++;
    bytes += statSync(path.join(e.parentPath, e.name)).size;
  }
  return { files, bytes };
}

/** /big in the copy-up's image: BIG_DIRS folders of BIG_FILES files of BIG_FILE_BYTES (~200 MB) */
const BIG_DIRS = 8;
const BIG_FILES = 250;
const BIG_FILE_BYTES = 100 * 1024;
const MAKE_BIG = `head -c ${BIG_FILE_BYTES} /dev/urandom > /seed && for d in $(seq 0 ${BIG_DIRS - 1}); do mkdir -p /big/d$d; for f in $(seq 0 ${BIG_FILES - 1}); do cat /seed > /big/d$d/f$f; done; done; rm /seed`;

const TMPFS = ['-o', 'type=tmpfs', '-o', 'device=tmpfs', '-o', 'o=size=4m'];

describe('volumes across a kill -9 of berthd', { concurrency: false }, () => {
  it('keeps the mounts of containers that run on, counts their users again, and unmounts with the last one', async () => {
    const first = await startFirst();
    ok(await first.docker(['volume', 'create', ...TMPFS, 'tm']));
    const c1 = ok(await first.docker(['run', '-d', '--name', 'c1', '-v', 'tm:/t', '-v', 'named:/n', '-v', '/anon', 'busybox', 'sleep', '600'])).trim();
    const c2 = ok(await first.docker(['run', '-d', '--name', 'c2', '-v', 'tm:/t', '-v', 'named:/n', 'busybox', 'sleep', '600'])).trim();
    ok(await first.docker(['exec', 'c1', 'sh', '-c', 'echo one > /t/one; echo named > /n/f; echo anon > /anon/f']));
    ok(await first.docker(['exec', 'c2', 'sh', '-c', 'echo two > /t/two']));
    const anon = String((await inspectContainer(first, 'c1')).Mounts.find((m) => m.Destination === '/anon')?.Name);
    assert.match(anon, /^[0-9a-f]{64}$/);
    const tmpfsDir = dataDir(first, 'tm');
    assert.deepEqual(mountsAt(tmpfsDir), ['tmpfs'], 'one host mount for both users');

    await crash(first);
    const d = await restart(first);
    const states = ok(await d.docker(['ps', '-a', '--format', '{{.Names}} {{.State}}'])).trim().split('\n').sort();
    assert.deepEqual(states, ['c1 running', 'c2 running']);
    // the data each sees is still there: the tmpfs was not remounted under them
    assert.equal(ok(await d.docker(['exec', 'c1', 'cat', '/t/one', '/t/two', '/n/f', '/anon/f'])), 'one\ntwo\nnamed\nanon\n');
    assert.equal(ok(await d.docker(['exec', 'c2', 'cat', '/t/one', '/n/f'])), 'one\nnamed\n');
    assert.deepEqual(mountsAt(tmpfsDir), ['tmpfs'], 'still one host mount after the restart');

    // the references are the containers' records: every volume is still in use
    const users = [c1, c2].sort();
    for (const [name, expected] of [['tm', users], ['named', users], [anon, [c1]]] as const) {
      const r = await d.request('DELETE', `/volumes/${name}`);
      assert.equal(r.status, 409, `${name}: ${r.body}`);
      const listed = /volume is in use - \[(.*)\]/.exec((r.json() as { message: string }).message)?.[1].split(', ').sort();
      assert.deepEqual(listed, [...expected], name);
    }
    const df = (await d.request('GET', '/system/df')).json() as { Volumes: Array<{ Name: string; UsageData: { RefCount: number; Size: number } }> };
    const usage = Object.fromEntries(df.Volumes.map((v) => [v.Name, v.UsageData]));
    assert.deepEqual(usage, { named: { RefCount: 2, Size: 'named\n'.length }, [anon]: { RefCount: 1, Size: 'anon\n'.length } }, 'the tmpfs volume (it has options) is not in df');

    // the first to stop leaves the tmpfs to the other
    ok(await d.docker(['stop', '-t', '0', 'c1']));
    await until('c1\'s unmounts', () => volumeEvents(d).then((e) => unmountsOf(e, c1)), (u) => u.length === 3);
    assert.deepEqual(unmountsOf(await volumeEvents(d), c1), [anon, 'named', 'tm'].sort());
    assert.deepEqual(mountsAt(tmpfsDir), ['tmpfs'], 'c2 still uses it');
    assert.equal(ok(await d.docker(['exec', 'c2', 'cat', '/t/one', '/t/two'])), 'one\ntwo\n');
    // the last one takes it down
    ok(await d.docker(['stop', '-t', '0', 'c2']));
    await until('c2\'s unmounts', () => volumeEvents(d).then((e) => unmountsOf(e, c2)), (u) => u.length === 2);
    assert.deepEqual(unmountsOf(await volumeEvents(d), c2), ['named', 'tm']);
    assert.deepEqual(mountsAt(tmpfsDir), [], 'unmounted with its last user');
    const unmountTm = (await volumeEvents(d)).filter((e) => e.Action === 'unmount' && e.Actor.ID === 'tm');
    assert.deepEqual(
      unmountTm.map((e) => e.Actor.Attributes),
      [
        { container: c1, driver: 'local' },
        { container: c2, driver: 'local' },
      ],
    );

    // the count starts afresh: a new run mounts a new (empty) tmpfs, its end unmounts it
    ok(await d.docker(['start', 'c1']));
    assert.deepEqual(mountsAt(tmpfsDir), ['tmpfs']);
    assert.equal(ok(await d.docker(['exec', 'c1', 'ls', '-A', '/t'])), '');
    assert.equal(ok(await d.docker(['exec', 'c1', 'cat', '/n/f'])), 'named\n');
    ok(await d.docker(['stop', '-t', '0', 'c1']));
    await until('the tmpfs to go again', () => mountsAt(tmpfsDir), (m) => m.length === 0);

    ok(await d.docker(['rm', 'c1', 'c2']));
    for (const name of ['tm', 'named', anon]) assert.equal((await d.request('DELETE', `/volumes/${name}`)).status, 204, name);
    await finish(d, first.dataRoot);
  });

  it('undoes the mounts of a container that ended while berthd was down, and a plugin gets its Unmount with the Mount\'s ID', async () => {
    const pluginsDir = tempDir('berth-volplugins-');
    const plugin = await startVolumePlugin({ dir: pluginsDir, name: 'testvol', root: path.join(pluginsDir, 'volumes') });
    plugins.push(plugin);
    const args = ['--plugins-dir', pluginsDir];
    const first = await startFirst(args);
    ok(await first.docker(['volume', 'create', ...TMPFS, 'tv']));
    ok(await first.docker(['volume', 'create', ...TMPFS, 'kept']));
    ok(await first.docker(['volume', 'create', '-d', 'testvol', 'pv']));
    ok(await first.docker(['volume', 'create', '-d', 'testvol', 'pk']));
    const victim = ok(await first.docker(['run', '-d', '--name', 'victim', '-v', 'tv:/t', '-v', 'pv:/p', 'busybox', 'sleep', '600'])).trim();
    const survivor = ok(await first.docker(['run', '-d', '--name', 'survivor', '-v', 'kept:/k', '-v', 'pk:/p', 'busybox', 'sleep', '600'])).trim();
    ok(await first.docker(['exec', 'survivor', 'sh', '-c', 'echo kept > /k/f']));
    // a container that ends by itself while berthd is away (when /k/stop appears), with a tmpfs volume of its own and the survivor's
    ok(await first.docker(['volume', 'create', ...TMPFS, 'brief']));
    const brief = ok(await first.docker(['run', '-d', '--name', 'brief', '-v', 'brief:/b', '-v', 'kept:/k', 'busybox', 'sh', '-c', 'until [ -e /k/stop ]; do sleep 0.05; done'])).trim();
    const mount = plugin.mounts.filter((m) => m.Name === 'pv');
    assert.equal(mount.length, 1);
    assert.equal(mount[0].method, 'Mount');
    const keptMount = plugin.mounts.filter((m) => m.Name === 'pk');
    assert.deepEqual(keptMount.map((m) => m.method), ['Mount']);
    for (const v of ['tv', 'kept', 'brief']) assert.deepEqual(mountsAt(dataDir(first, v)), ['tmpfs'], v);
    const victimPid = (await inspectContainer(first, 'victim')).State.Pid;
    const briefPid = (await inspectContainer(first, 'brief')).State.Pid;

    await crash(first);
    process.kill(victimPid, 'SIGKILL');
    writeFileSync(path.join(dataDir(first, 'kept'), 'stop'), '');
    await until('the victim and brief to end', () => alive(victimPid) || alive(briefPid), (a) => !a);

    const d = await restart(first, args);
    const states = ok(await d.docker(['ps', '-a', '--format', '{{.Names}} {{.State}}'])).trim().split('\n').sort();
    assert.deepEqual(states, ['brief exited', 'survivor running', 'victim exited']);
    await until('the ended runs\' mounts to go', () => ['tv', 'brief'].flatMap((v) => mountsAt(dataDir(d, v))), (m) => m.length === 0);
    assert.deepEqual(mountsAt(dataDir(d, 'kept')), ['tmpfs'], 'the survivor keeps the tmpfs it shared with brief');
    assert.equal(ok(await d.docker(['exec', 'survivor', 'cat', '/k/f'])), 'kept\n');
    await until('the plugin\'s Unmount', () => plugin.mounts.filter((m) => m.Name === 'pv').length, (n) => n >= 2);
    assert.deepEqual(plugin.mounts.filter((m) => m.Name === 'pk'), keptMount, 'the survivor\'s plugin volume stays mounted');
    assert.deepEqual(
      plugin.mounts.filter((m) => m.Name === 'pv'),
      [mount[0], { method: 'Unmount', Name: 'pv', ID: mount[0].ID }],
    );
    const events = await volumeEvents(d);
    assert.deepEqual(unmountsOf(events, victim), ['pv', 'tv']);
    assert.deepEqual(unmountsOf(events, brief), ['brief', 'kept']);
    assert.deepEqual(unmountsOf(events, survivor), []);
    // nobody holds them now: they can go
    for (const v of ['tv', 'brief', 'pv']) {
      const r = await d.request('DELETE', `/volumes/${v}`);
      assert.equal(r.status, 409, `${v} is still referenced by its container: ${r.body}`);
    }

    // the victim runs again: a new Mount, and its end the matching Unmount
    ok(await d.docker(['start', 'victim']));
    assert.deepEqual(mountsAt(dataDir(d, 'tv')), ['tmpfs']);
    ok(await d.docker(['stop', '-t', '0', 'victim']));
    await until('the second Unmount', () => plugin.mounts.filter((m) => m.Name === 'pv').length, (n) => n >= 4);
    const again = plugin.mounts.filter((m) => m.Name === 'pv').slice(2);
    assert.deepEqual(again, [again[0], { method: 'Unmount', Name: 'pv', ID: again[0].ID }]);
    assert.equal(again[0].method, 'Mount');
    await until('tv to go again', () => mountsAt(dataDir(d, 'tv')), (m) => m.length === 0);

    ok(await d.docker(['rm', '-f', 'victim', 'survivor', 'brief']));
    // the survivor's end unmounts its plugin volume with the ID its Mount had before the crash
    await until('the survivor\'s Unmount', () => plugin.mounts.filter((m) => m.Name === 'pk').length, (n) => n >= 2);
    assert.deepEqual(plugin.mounts.filter((m) => m.Name === 'pk'), [keptMount[0], { method: 'Unmount', Name: 'pk', ID: keptMount[0].ID }]);
    await until('kept to go', () => mountsAt(dataDir(d, 'kept')), (m) => m.length === 0);
    for (const v of ['tv', 'kept', 'brief', 'pv', 'pk']) assert.equal((await d.request('DELETE', `/volumes/${v}`)).status, 204, v);
    await finish(d, first.dataRoot);
  });
  it('takes no copy-up a crash cut short for a filled volume, and does not redo a whole one', async () => {
    const first = await startFirst();
    // an image with ~200 MB in many files under /big
    ok(await first.docker(['run', '--name', 'maker', 'busybox', 'sh', '-c', MAKE_BIG], { timeoutMs: 120_000 }), 'making /big');
    ok(await first.docker(['commit', 'maker', 'bigimg'], { timeoutMs: 120_000 }), 'commit');
    ok(await first.docker(['rm', 'maker']));
    const whole = { files: BIG_DIRS * BIG_FILES, bytes: BIG_DIRS * BIG_FILES * BIG_FILE_BYTES };
    const mark = path.join(first.dataRoot, 'volume-records', 'cv.copy-up');
    const volume = dataDir(first, 'cv');

    const creating = first.docker(['create', '--name', 'cc', '-v', 'cv:/big', 'bigimg'], { timeoutMs: 120_000 });
    // the crash comes while the copy runs: the mark is there and the files are coming
    const deadline = Date.now() + 60_000;
    while (!(existsSync(mark) && existsSync(volume) && contentOf(volume).files > 0)) {
      assert.ok(Date.now() < deadline, 'the copy-up did not begin');
      await new Promise((r) => setTimeout(r, 2));
    }
    await crash(first);
    const atCrash = contentOf(volume);
    assert.notEqual((await creating).code, 0, 'the create did not answer');
    assert.ok(atCrash.files < whole.files, `the crash came before the copy ended (${atCrash.files} of ${whole.files} files)`);

    const d = await restart(first);
    // nothing the dead daemon started goes on filling the volume behind the new one's back
    await until('no copy of the dead daemon', () => processesNaming(first.dataRoot).filter((p) => !p.cmdline.includes('berthd')).map((p) => p.cmdline), (p) => p.length === 0);
    assert.equal(ok(await d.docker(['ps', '-a', '--format', '{{.Names}}'])).trim(), '', 'the interrupted create left no container');
    // (l holds the root filesystems' short links)
    const rootfs = path.join(first.dataRoot, 'rootfs');
    assert.deepEqual([readdirSync(rootfs), readdirSync(path.join(rootfs, 'l'))], [['l'], []], 'nor its root filesystem');
    const names = ok(await d.docker(['volume', 'ls', '-q'])).trim();
    if (names !== '') {
      assert.equal(names, 'cv');
      assert.deepEqual(contentOf(volume), { files: 0, bytes: 0 }, 'the half-filled volume was emptied');
    }
    assert.ok(!existsSync(mark), 'the mark is gone');

    // the next container fills it whole
    ok(await d.docker(['create', '--name', 'cc2', '-v', 'cv:/big', 'bigimg'], { timeoutMs: 120_000 }));
    assert.deepEqual(contentOf(volume), whole);
    assert.ok(!existsSync(mark), 'a whole copy-up leaves no mark');
    assert.equal(ok(await d.docker(['run', '--rm', '-v', 'cv:/big', 'busybox', 'sh', '-c', 'find /big -type f | wc -l; rm /big/d0/f0'])).trim(), String(whole.files));

    // a whole copy-up is not redone, even across a crash: the file deleted from the volume stays deleted
    await crash(d);
    const d3 = await restart(first);
    ok(await d3.docker(['create', '--name', 'cc3', '-v', 'cv:/big', 'bigimg'], { timeoutMs: 120_000 }));
    assert.deepEqual(contentOf(volume), { files: whole.files - 1, bytes: whole.bytes - BIG_FILE_BYTES });
    assert.equal(ok(await d3.docker(['run', '--rm', '-v', 'cv:/big', 'busybox', 'sh', '-c', 'test ! -e /big/d0/f0 && find /big -type f | wc -l'])).trim(), String(whole.files - 1));
    await finish(d3, first.dataRoot);
  });

  it('keeps a volume whose create was answered, and adopts a bare directory made by hand', async () => {
    const first = await startFirst();
    const created = await first.request('POST', '/volumes/create', {
      json: { Name: 'rv', Labels: { team: 'a', empty: '' }, DriverOpts: { type: 'tmpfs', device: 'tmpfs', o: 'size=1m,mode=0700' } },
    });
    assert.equal(created.status, 201, created.body);
    await crash(first);

    // while berthd is down, a volume's directory made by hand, with a file in it
    const handmade = path.join(first.dataRoot, 'volumes', 'handmade', '_data');
    mkdirSync(handmade, { recursive: true });
    writeFileSync(path.join(handmade, 'hello'), 'by hand\n');
    // and what a crash amid a record's write leaves: its temporary file, half written
    const records = path.join(first.dataRoot, 'volume-records');
    writeFileSync(path.join(records, '.ghost.json.tmp-0123456789ab'), '{"name":"gho');

    const d = await restart(first);
    const rv = (await d.request('GET', '/volumes/rv')).json() as Record<string, unknown>;
    // as it was answered, CreatedAt (the ctime of _data) included
    assert.deepEqual(rv, created.json());
    assert.deepEqual([rv.Labels, rv.Options], [{ empty: '', team: 'a' }, { device: 'tmpfs', o: 'size=1m,mode=0700', type: 'tmpfs' }]);
    // its options still hold: a container gets the tmpfs
    assert.equal(ok(await d.docker(['run', '--rm', '-v', 'rv:/r', 'busybox', 'sh', '-c', 'stat -c %a /r; grep " /r " /proc/mounts | cut -d" " -f3'])), '700\ntmpfs\n');

    const adopted = (await d.request('GET', '/volumes/handmade')).json() as Record<string, unknown>;
    assert.deepEqual(
      { ...adopted, CreatedAt: undefined },
      { CreatedAt: undefined, Driver: 'local', Labels: null, Mountpoint: handmade, Name: 'handmade', Options: null, Scope: 'local' },
    );
    assert.deepEqual(ok(await d.docker(['volume', 'ls', '-q'])).trim().split('\n').sort(), ['handmade', 'rv']);
    assert.deepEqual(readdirSync(records).sort(), ['handmade.json', 'rv.json'], 'the bare directory got a record; the temporary file went');
    assert.equal(ok(await d.docker(['run', '--rm', '-v', 'handmade:/h', 'busybox', 'cat', '/h/hello'])), 'by hand\n');
    // adopted for good: after another crash it is still a volume, without the directory being made again
    await crash(d);
    const d3 = await restart(first);
    assert.equal((await d3.request('GET', '/volumes/handmade')).status, 200);
    for (const v of ['handmade', 'rv']) assert.equal((await d3.request('DELETE', `/volumes/${v}`)).status, 204, v);
    assert.deepEqual(readdirSync(records), []);
    await finish(d3, first.dataRoot);
  });
});
