// Containers and their volumes against a real berthd, through the docker CLI as a user runs them:
// data kept across containers, the image's content copied into a new volume (and only then),
// nocopy, anonymous volumes and their removal, volumes-from, read-only mounts, inspect's Mounts,
// --mount's volume options, local volumes backed by tmpfs or a bind (mounted on the host only
// while used), the volume events, and docker cp / export over a volume. Expected values are the
// reference engine's (dockerd 20.10).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { tempDir, type Berthd } from '../../helpers/berthd.js';
import { inspectContainer, startWithBusybox, teardown } from '../../helpers/containers.js';

const HEX64 = /^[0-9a-f]{64}$/;
const q = (value: unknown) => encodeURIComponent(JSON.stringify(value));

interface WireEvent {
  Type: string;
  Action: string;
  Actor: { ID: string; Attributes: Record<string, string> };
}

/** The mount points of this process's mount namespace (berthd shares it) at or under `dir`. */
function mountsAt(dir: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[4])
    .filter((m) => m !== undefined && (m === dir || m.startsWith(`${dir}/`)));
}

describe('containers and their volumes', () => {
  let d: Berthd;
  let scratch: string;
  before(async () => {
    d = await startWithBusybox({ args: ['--plugins-dir', tempDir('berth-voltest-plugins-')] });
    scratch = tempDir('berth-voltest-scratch-');
  });
  after(async () => {
    await teardown(d);
  });
  afterEach(async () => {
    const r = await d.request('GET', '/containers/json?all=1');
    for (const c of r.json() as Array<{ Id: string }>) assert.equal((await d.request('DELETE', `/containers/${c.Id}?force=1`, { timeoutMs: 30000 })).status, 204);
    for (const name of await volumeNames()) assert.equal((await d.request('DELETE', `/volumes/${name}`)).status, 204, name);
  });

  async function docker(...args: string[]): Promise<string> {
    const r = await d.docker(args);
    assert.equal(r.code, 0, `docker ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  }
  async function volumeNames(): Promise<string[]> {
    const r = await d.request('GET', '/volumes');
    assert.equal(r.status, 200, r.body);
    return (r.json() as { Volumes: Array<{ Name: string }> }).Volumes.map((v) => v.Name).sort();
  }
  const dataOf = (name: string) => path.join(d.dataRoot, 'volumes', name, '_data');
  const mode = (p: string) => (statSync(p).mode & 0o7777).toString(8);

  it('keeps a volume\'s data after its container is removed, for the next container', async () => {
    await docker('run', '--name', 'writer', '-v', 'data:/d', 'busybox', 'sh', '-c', 'echo x > /d/f');
    await docker('rm', 'writer');
    assert.deepEqual(await volumeNames(), ['data']);
    assert.equal(readFileSync(path.join(dataOf('data'), 'f'), 'utf8'), 'x\n');
    assert.equal((await docker('run', '--rm', '-v', 'data:/mnt/other', 'busybox', 'cat', '/mnt/other/f')).trim(), 'x');
  });

  it('copies the image\'s content into a new volume at create, with the directory\'s owner and mode, and only into an empty one', async () => {
    // docker create is enough: the copy is made at create, before any start
    await docker('create', '--name', 'cu', '-v', 'cu-etc:/etc', '-v', 'cu-tmp:/tmp', '-v', 'cu-root:/root', '-v', 'cu-none:/not/in/image', 'busybox');
    const files = readdirSync(dataOf('cu-etc')).sort();
    for (const f of ['group', 'passwd']) assert.ok(files.includes(f), `${f} in ${files.join(' ')}`);
    assert.equal(readFileSync(path.join(dataOf('cu-etc'), 'passwd'), 'utf8').split('\n')[0], 'root:x:0:0:root:/root:/bin/sh');
    assert.equal(mode(path.join(dataOf('cu-etc'), 'passwd')), '644');
    assert.equal(mode(dataOf('cu-tmp')), '1777');
    assert.equal(mode(dataOf('cu-root')), '700');
    assert.equal(mode(dataOf('cu-none')), '755');
    assert.deepEqual(readdirSync(dataOf('cu-none')), []);

    // inside, the volume shows the image's files; a file removed from it stays removed
    assert.match(await docker('run', '--rm', '-v', 'cu-etc:/etc', 'busybox', 'sh', '-c', 'cat /etc/passwd && rm /etc/passwd'), /^root:x:0:0/);
    const again = await d.docker(['run', '--rm', '-v', 'cu-etc:/etc', 'busybox', 'ls', '/etc/passwd']);
    assert.notEqual(again.code, 0, 'the second container must not copy into a volume that is not empty');
    assert.ok(!existsSync(path.join(dataOf('cu-etc'), 'passwd')));
  });

  it('carries a directory\'s owner and mode from an image built by commit', async () => {
    await docker('run', '--name', 'owned', 'busybox', 'sh', '-c', 'mkdir /own && echo s > /own/f && chmod 600 /own/f && chown -R 1000:2000 /own && chmod 750 /own');
    await docker('commit', 'owned', 'voltest/owned:1');
    await docker('run', '--rm', '-v', 'own:/own', 'voltest/owned:1', 'true');
    const dir = statSync(dataOf('own'));
    const file = statSync(path.join(dataOf('own'), 'f'));
    assert.deepEqual([mode(dataOf('own')), dir.uid, dir.gid], ['750', 1000, 2000]);
    assert.deepEqual([mode(path.join(dataOf('own'), 'f')), file.uid, file.gid], ['600', 1000, 2000]);
    await docker('rm', 'owned');
    await docker('rmi', 'voltest/owned:1');
  });

  it('copies nothing with nocopy or volume-nocopy', async () => {
    const bindTargets = new Set(['hostname', 'hosts', 'resolv.conf']);
    const seen = (await docker('run', '--rm', '-v', 'nc1:/etc:nocopy', 'busybox', 'ls', '/etc')).trim().split('\n');
    assert.ok(!seen.includes('passwd') && !seen.includes('group'), seen.join(' '));
    await docker('run', '--rm', '--mount', 'type=volume,src=nc2,dst=/etc,volume-nocopy', 'busybox', 'true');
    for (const v of ['nc1', 'nc2']) {
      // only the targets of the hostname, hosts and resolv.conf binds can be there
      const left = readdirSync(dataOf(v)).filter((f) => !bindTargets.has(f));
      assert.deepEqual(left, [], `${v}: ${left.join(' ')}`);
      assert.equal(mode(dataOf(v)), '755');
    }
    const c = (await docker('create', '-v', 'nc3:/etc:nocopy', 'busybox')).trim();
    assert.equal((await inspectContainer(d, c)).Mounts[0].Mode, 'nocopy');
    assert.deepEqual(readdirSync(dataOf('nc3')), []);
  });

  it('gives anonymous volumes 64-hex names, from -v /path, --mount without a source and Config.Volumes', async () => {
    const id = (await docker('create', '--name', 'anon', '-v', '/anon', '--mount', 'type=volume,dst=/anonm', 'busybox')).trim();
    const r = await d.request('POST', '/containers/create?name=anon-api', { json: { Image: 'busybox', Volumes: { '/cfg': {} } } });
    assert.equal(r.status, 201, r.body);
    const byDestination = new Map([...(await inspectContainer(d, id)).Mounts, ...(await inspectContainer(d, 'anon-api')).Mounts].map((m) => [m.Destination, m]));
    for (const dst of ['/anon', '/anonm', '/cfg']) {
      const m = byDestination.get(dst);
      assert.match(String(m?.Name), HEX64, dst);
      assert.equal(m?.Source, dataOf(String(m?.Name)));
    }
    assert.equal(byDestination.get('/anon')?.Mode, '');
    assert.equal(byDestination.get('/anonm')?.Mode, 'z');
    assert.equal(byDestination.get('/cfg')?.Mode, '');
    assert.equal((await volumeNames()).length, 3);
  });

  it('rm -v and --rm remove the anonymous volumes and keep the named ones; rm alone keeps both', async () => {
    await docker('create', '--name', 'keep', '-v', '/k', '-v', 'named-k:/n', 'busybox');
    const keptAnon = (await inspectContainer(d, 'keep')).Mounts.find((m) => m.Destination === '/k')?.Name as string;
    await docker('rm', 'keep');
    assert.deepEqual(await volumeNames(), [keptAnon, 'named-k'].sort());

    await docker('create', '--name', 'rmv', '-v', '/a1', '--mount', 'type=volume,dst=/a2', '-v', 'named-v:/n', 'busybox');
    const anon = (await inspectContainer(d, 'rmv')).Mounts.filter((m) => m.Destination !== '/n').map((m) => m.Name as string);
    assert.equal(anon.length, 2);
    await docker('rm', '-v', 'rmv');
    let names = await volumeNames();
    assert.ok(names.includes('named-v'));
    for (const a of anon) assert.ok(!names.includes(a), `${a} should be gone`);

    await docker('run', '--rm', '-v', '/a3', '--mount', 'type=volume,dst=/a4', '-v', 'named-rm:/n', 'busybox', 'true');
    names = await volumeNames();
    assert.deepEqual(names, [keptAnon, 'named-k', 'named-rm', 'named-v'].sort());
  });

  it('--volumes-from c:ro gives the other container\'s volumes read-only, with Mode ""', async () => {
    await docker('run', '--name', 'vf-src', '-v', 'vf1:/v1', '-v', '/v2', 'busybox', 'sh', '-c', 'echo from-src > /v1/f');
    const src = await inspectContainer(d, 'vf-src');
    const out = await d.docker(['run', '--name', 'vf-ro', '--volumes-from', 'vf-src:ro', 'busybox', 'sh', '-c', 'cat /v1/f; touch /v1/g']);
    assert.equal(out.code, 1, out.stderr);
    assert.equal(out.stdout.trim(), 'from-src');
    assert.match(out.stderr, /Read-only file system/);
    const ro = await inspectContainer(d, 'vf-ro');
    assert.equal(ro.Mounts.length, 2);
    for (const m of ro.Mounts) {
      const mine = src.Mounts.find((s) => s.Destination === m.Destination);
      assert.deepEqual(m, { ...mine, Mode: '', RW: false });
    }
    // without :ro, the same RW as the source's
    await docker('run', '--name', 'vf-rw', '--volumes-from', 'vf-src', 'busybox', 'sh', '-c', 'echo rw > /v1/g');
    for (const m of (await inspectContainer(d, 'vf-rw')).Mounts) assert.deepEqual([m.Mode, m.RW], ['', true]);
    assert.equal(readFileSync(path.join(dataOf('vf1'), 'g'), 'utf8'), 'rw\n');
  });

  it('mounts -v v:/d:ro read-only', async () => {
    const r = await d.docker(['run', '--rm', '-v', 'rov:/d:ro', 'busybox', 'sh', '-c', 'touch /d/x']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Read-only file system/);
    assert.deepEqual(readdirSync(dataOf('rov')), []);
  });

  it('shows Mounts as dockerd does, key order and modes included', async () => {
    const id = (
      await docker(
        'create', '-v', 'mv1:/data', '-v', 'mv2:/ro:ro', '-v', 'mv3:/z:z', '-v', 'mv4:/nc:nocopy', '-v', '/anon',
        '--mount', 'type=volume,src=mv5,dst=/d5,volume-nocopy', '--mount', 'type=volume,src=mv6,dst=/d6,readonly', 'busybox',
      )
    ).trim();
    const mounts = (await inspectContainer(d, id)).Mounts;
    const anon = mounts.find((m) => m.Destination === '/anon')?.Name as string;
    assert.match(anon, HEX64);
    const v = (name: string, destination: string, mode: string, rw: boolean) => ({ Type: 'volume', Name: name, Source: dataOf(name), Destination: destination, Driver: 'local', Mode: mode, RW: rw, Propagation: '' });
    const expected = [v('mv1', '/data', 'z', true), v('mv2', '/ro', 'ro', false), v('mv3', '/z', 'z', true), v('mv4', '/nc', 'nocopy', true), v(anon, '/anon', '', true), v('mv5', '/d5', 'z', true), v('mv6', '/d6', 'z', false)];
    const byDestination = (a: Record<string, unknown>, b: Record<string, unknown>) => String(a.Destination).localeCompare(String(b.Destination));
    assert.deepEqual([...mounts].sort(byDestination), expected.sort(byDestination));
    for (const m of mounts) assert.deepEqual(Object.keys(m), ['Type', 'Name', 'Source', 'Destination', 'Driver', 'Mode', 'RW', 'Propagation']);
  });

  it('creates a volume with --mount\'s labels and driver options', async () => {
    await docker(
      'create', '--mount', 'type=volume,src=ml,dst=/l,volume-label=a=b,volume-label=c=d',
      '--mount', 'type=volume,src=mo,dst=/o,volume-driver=local,volume-opt=type=tmpfs,volume-opt=device=tmpfs,"volume-opt=o=size=2m,mode=0755"', 'busybox',
    );
    const [ml, mo] = JSON.parse(await docker('volume', 'inspect', 'ml', 'mo')) as Array<{ Labels: unknown; Options: unknown; Driver: string }>;
    assert.deepEqual([ml.Labels, ml.Options], [{ a: 'b', c: 'd' }, null]);
    assert.deepEqual([mo.Labels, mo.Options, mo.Driver], [null, { device: 'tmpfs', o: 'size=2m,mode=0755', type: 'tmpfs' }, 'local']);
    // through the API as the CLI sends it, and an existing volume keeps what it has
    const r = await d.request('POST', '/containers/create', {
      json: { Image: 'busybox', HostConfig: { Mounts: [{ Type: 'volume', Source: 'ml', Target: '/x', VolumeOptions: { Labels: { z: 'z' }, DriverConfig: { Name: 'local', Options: { type: 'tmpfs', device: 'tmpfs' } } } }] } },
    });
    assert.equal(r.status, 201, r.body);
    assert.deepEqual(((await d.request('GET', '/volumes/ml')).json() as { Labels: unknown }).Labels, { a: 'b', c: 'd' });
  });

  it('shares a volume between two running containers', async () => {
    await docker('run', '-d', '--name', 'sh1', '-v', 'shared:/s', 'busybox', 'sleep', '300');
    await docker('run', '-d', '--name', 'sh2', '-v', 'shared:/t', 'busybox', 'sleep', '300');
    await docker('exec', 'sh1', 'sh', '-c', 'echo one > /s/f');
    assert.equal((await docker('exec', 'sh2', 'cat', '/t/f')).trim(), 'one');
    await docker('exec', 'sh2', 'sh', '-c', 'echo two >> /t/f');
    assert.equal(await docker('exec', 'sh1', 'cat', '/s/f'), 'one\ntwo\n');
  });

  it('mounts a tmpfs local volume on the host only while containers use it, with its size enforced', async () => {
    assert.equal((await docker('volume', 'create', '-o', 'type=tmpfs', '-o', 'device=tmpfs', '-o', 'o=size=1m', 'tv')).trim(), 'tv');
    const data = dataOf('tv');
    assert.deepEqual(mountsAt(data), [], 'nothing is mounted at create');
    await docker('run', '-d', '--name', 'tv1', '-v', 'tv:/d', 'busybox', 'sleep', '300');
    assert.deepEqual(mountsAt(data), [data]);
    const line = readFileSync('/proc/self/mountinfo', 'utf8').split('\n').find((l) => l.split(' ')[4] === data) ?? '';
    assert.match(line, / - tmpfs tmpfs rw,.*size=1024k/);
    const big = await d.docker(['exec', 'tv1', 'dd', 'if=/dev/zero', 'of=/d/big', 'bs=1M', 'count=2']);
    assert.notEqual(big.code, 0);
    assert.match(big.stderr, /No space left on device/);
    await docker('exec', 'tv1', 'sh', '-c', 'rm /d/big; echo kept > /d/f');
    // a second user shares the one mount; it stays until the last one stops
    await docker('run', '-d', '--name', 'tv2', '-v', 'tv:/e', 'busybox', 'sleep', '300');
    assert.equal((await docker('exec', 'tv2', 'cat', '/e/f')).trim(), 'kept');
    assert.deepEqual(mountsAt(data), [data]);
    await docker('rm', '-f', 'tv1');
    assert.deepEqual(mountsAt(data), [data]);
    assert.equal((await docker('exec', 'tv2', 'cat', '/e/f')).trim(), 'kept');
    await docker('stop', '-t', '0', 'tv2');
    assert.deepEqual(mountsAt(data), [], 'unmounted after its last user stopped');
    assert.deepEqual(readdirSync(data), [], 'the tmpfs content went with it');
    await docker('start', 'tv2');
    assert.deepEqual(mountsAt(data), [data]);
    await docker('rm', '-f', 'tv2');
    assert.deepEqual(mountsAt(data), []);
    await docker('volume', 'rm', 'tv');
    assert.ok(!existsSync(path.dirname(data)));
  });

  it('shows a host directory through a bind-type local volume, and leaves it when the volume goes', async () => {
    const src = path.join(scratch, 'bindsrc');
    mkdirSync(src);
    writeFileSync(path.join(src, 'host-file'), 'from the host\n');
    await docker('volume', 'create', '-o', 'type=none', '-o', `device=${src}`, '-o', 'o=bind', 'bv');
    assert.equal(await docker('run', '--rm', '-v', 'bv:/d', 'busybox', 'sh', '-c', 'cat /d/host-file; echo back > /d/from-container'), 'from the host\n');
    assert.equal(readFileSync(path.join(src, 'from-container'), 'utf8'), 'back\n');
    assert.deepEqual(mountsAt(dataOf('bv')), []);
    // nothing of the directory was copied into the volume's own _data
    assert.deepEqual(readdirSync(dataOf('bv')), []);
    await docker('volume', 'rm', 'bv');
    assert.deepEqual(readdirSync(src).sort(), ['from-container', 'host-file']);
  });

  it('fails the start, not the create, when a bind-type volume\'s directory is missing, and unmounts what it mounted', async () => {
    const missing = path.join(scratch, 'nonexist');
    await docker('volume', 'create', '-o', 'type=none', '-o', `device=${missing}`, '-o', 'o=bind', 'bmiss');
    await docker('volume', 'create', '-o', 'type=tmpfs', '-o', 'device=tmpfs', 'bok');
    const c = await d.request('POST', '/containers/create', { json: { Image: 'busybox', HostConfig: { Binds: ['bok:/a', 'bmiss:/d'] } } });
    assert.equal(c.status, 201, c.body);
    const id = (c.json() as { Id: string }).Id;
    const since = (Date.now() / 1000).toFixed(3);
    const r = await d.request('POST', `/containers/${id}/start`);
    assert.equal(r.status, 500, r.body);
    const data = dataOf('bmiss');
    const prefix = `error while mounting volume '${data}': failed to mount local volume: mount ${missing}:${data}, flags: 0x1000: `;
    const message = (r.json() as { message: string }).message;
    assert.ok(message.startsWith(prefix), message);
    assert.ok(message.length > prefix.length, message);
    assert.doesNotMatch(message, /\n/);
    assert.deepEqual(mountsAt(path.join(d.dataRoot, 'volumes')), [], 'the tmpfs volume mounted first was unmounted');
    // as dockerd: no mount event for the one that failed, but an unmount event for each
    const events = (await d.request('GET', `/events?since=${since}&until=${(Date.now() / 1000 + 1).toFixed(3)}&filters=${q({ type: ['volume'] })}`)).body
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as WireEvent);
    assert.deepEqual(
      events.filter((e) => ['bok', 'bmiss'].includes(e.Actor.ID) && e.Action !== 'destroy').map((e) => [e.Action, e.Actor.ID]),
      [
        ['mount', 'bok'],
        ['unmount', 'bok'],
        ['unmount', 'bmiss'],
      ],
    );
    const run = await d.docker(['run', '--rm', '-v', 'bmiss:/d', 'busybox', 'true']);
    assert.equal(run.code, 125);
    assert.ok(run.stderr.includes(prefix), run.stderr);
    // the removal's wait tells the exit code alone, as dockerd's: the CLI says the error once
    assert.doesNotMatch(run.stderr, /Error waiting for container/);
  });

  it('tells volume create, mount, unmount and destroy events with dockerd\'s attributes, in order', async () => {
    const since = (Date.now() / 1000).toFixed(3);
    await docker('volume', 'create', 'ev1');
    const id = (await docker('run', '-d', '--name', 'evc', '-v', 'ev1:/data', '-v', 'ev2:/ro:ro', 'busybox', 'sleep', '300')).trim();
    await docker('stop', '-t', '0', 'evc');
    await docker('rm', 'evc');
    await docker('volume', 'rm', 'ev1');
    await docker('run', '--rm', '-v', '/anon', 'busybox', 'true');
    const until = (Date.now() / 1000 + 1).toFixed(3);
    const r = await d.request('GET', `/events?since=${since}&until=${until}&filters=${q({ type: ['volume', 'container'] })}`);
    const events = r.body
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as WireEvent);
    // (an earlier test's clean-up may fall within `since`: berthd's clock is its own)
    const anon = events.filter((e) => e.Type === 'volume').at(-1)?.Actor.ID as string;
    assert.match(anon, HEX64);
    const volumeEvents = events.filter((e) => e.Type === 'volume' && ['ev1', 'ev2', anon].includes(e.Actor.ID));
    const second = events.filter((e) => e.Type === 'container' && e.Action === 'create').at(-1)?.Actor.ID as string;
    // each volume's own events in order (the CLI sends the -v list in its map's order, which varies)
    const of = (name: string) => volumeEvents.filter((e) => e.Actor.ID === name).map((e) => [e.Action, e.Actor.Attributes]);
    assert.deepEqual(of('ev1'), [
      ['create', { driver: 'local' }],
      // a create for each volume the container names, made or found
      ['create', { driver: 'local' }],
      ['mount', { container: id, destination: '/data', driver: 'local', propagation: '', 'read/write': 'true' }],
      ['unmount', { container: id, driver: 'local' }],
      ['destroy', { driver: 'local' }],
    ]);
    assert.deepEqual(of('ev2'), [
      ['create', { driver: 'local' }],
      ['mount', { container: id, destination: '/ro', driver: 'local', propagation: '', 'read/write': 'false' }],
      ['unmount', { container: id, driver: 'local' }],
    ]);
    assert.deepEqual(of(anon), [
      ['create', { driver: 'local' }],
      ['mount', { container: second, destination: '/anon', driver: 'local', propagation: '', 'read/write': 'true' }],
      ['unmount', { container: second, driver: 'local' }],
      ['destroy', { driver: 'local' }],
    ]);
    // and all of a run's mounts come before its unmounts
    const actions = volumeEvents.filter((e) => e.Actor.ID !== anon).map((e) => e.Action);
    assert.ok(actions.lastIndexOf('mount') < actions.indexOf('unmount'), actions.join(' '));
    // against the container's events: created after its volumes, mounted before start, unmounted after start,
    // an anonymous volume destroyed before its container
    const at = (type: string, action: string, actor: string) => events.findIndex((e) => e.Type === type && e.Action === action && e.Actor.ID === actor);
    for (const [cid, vol] of [[id, 'ev1'], [second, anon]]) {
      const createdC = at('container', 'create', cid);
      const mounted = events.findIndex((e) => e.Action === 'mount' && e.Actor.ID === vol);
      const started = at('container', 'start', cid);
      const unmounted = events.findIndex((e) => e.Action === 'unmount' && e.Actor.ID === vol);
      const destroyedC = at('container', 'destroy', cid);
      assert.ok(createdC < mounted && mounted < started && started < unmounted && unmounted < destroyedC, JSON.stringify(events.map((e) => [e.Type, e.Action])));
    }
    assert.ok(at('volume', 'destroy', anon) < at('container', 'destroy', second));
  });

  it('docker cp into and out of a volume\'s path, and docker export, work over volumes', async () => {
    const hostFile = path.join(scratch, 'hello.txt');
    writeFileSync(hostFile, 'hello\n');
    await docker('create', '--name', 'cpc', '-v', 'cpv:/d', 'busybox', 'sleep', '300');
    // stopped: the file lands in the volume, not in the container's own layer
    await docker('cp', hostFile, 'cpc:/d/');
    assert.equal(readFileSync(path.join(dataOf('cpv'), 'hello.txt'), 'utf8'), 'hello\n');
    const out = path.join(scratch, 'out');
    mkdirSync(out);
    await docker('cp', 'cpc:/d/hello.txt', path.join(out, 'back.txt'));
    assert.equal(readFileSync(path.join(out, 'back.txt'), 'utf8'), 'hello\n');
    // running
    await docker('start', 'cpc');
    await docker('cp', hostFile, 'cpc:/d/h2');
    assert.equal((await docker('exec', 'cpc', 'cat', '/d/h2')).trim(), 'hello');
    await docker('exec', 'cpc', 'sh', '-c', 'echo inside > /d/made-inside');
    await docker('cp', 'cpc:/d/made-inside', path.join(out, 'inside.txt'));
    assert.equal(readFileSync(path.join(out, 'inside.txt'), 'utf8'), 'inside\n');
    // export: the container's filesystem, without what is in its volumes
    const tarFile = path.join(scratch, 'export.tar');
    await docker('export', '-o', tarFile, 'cpc');
    const listing = execFileSync('tar', ['-tf', tarFile], { encoding: 'utf8' }).split('\n');
    assert.ok(listing.includes('bin/busybox'), 'the image is in the export');
    assert.ok(!listing.some((f) => f.startsWith('d/') && f !== 'd/'), listing.filter((f) => f.startsWith('d')).join(' '));
  });
});
