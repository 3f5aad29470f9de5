// Legacy volume plugins against a real berthd: a plugin written in the test (a Node server on a
// unix socket in berthd's --plugins-dir, test/helpers/volume-plugin.ts) used by docker volume and
// docker run, the calls it gets (Mount and Unmount once per run with one ID), its errors in the
// CLI, a plugin that goes away and comes back, and discovery through a .spec file.
import type { Volume as WireVolume } from '../../../src/api/types/volume.js';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { tempDir, type Berthd } from '../../helpers/berthd.js';
import { startWithBusybox, teardown } from '../../helpers/containers.js';
import { startVolumePlugin, type VolumePlugin } from '../../helpers/volume-plugin.js';


/** Calls a plugin directly, as a volume made behind berth's back would be. */
function callPlugin(socket: string, method: string, body: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ socketPath: socket, method: 'POST', path: `/${method}` }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve(JSON.parse(text)));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('legacy volume plugins', () => {
  let d: Berthd;
  let pluginsDir: string;
  let pluginRoot: string;
  let plugin: VolumePlugin;
  const others: VolumePlugin[] = [];
  before(async () => {
    pluginsDir = tempDir('berth-voltest-plugins-');
    pluginRoot = tempDir('berth-voltest-pluginroot-');
    plugin = await startVolumePlugin({ dir: pluginsDir, name: 'testdriver', root: pluginRoot });
    d = await startWithBusybox({ args: ['--plugins-dir', pluginsDir] });
  });
  after(async () => {
    await teardown(d);
    for (const p of [plugin, ...others]) await p.close().catch(() => {});
  });
  afterEach(async () => {
    plugin.failing.clear();
    const r = await d.request('GET', '/containers/json?all=1');
    for (const c of r.json() as Array<{ Id: string }>) assert.equal((await d.request('DELETE', `/containers/${c.Id}?force=1`, { timeoutMs: 30000 })).status, 204);
  });

  async function docker(...args: string[]): Promise<string> {
    const r = await d.docker(args);
    assert.equal(r.code, 0, `docker ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  }
  async function inspect(name: string): Promise<WireVolume> {
    const r = await d.request('GET', `/volumes/${name}`);
    assert.equal(r.status, 200, r.body);
    return r.json() as WireVolume;
  }
  async function list(): Promise<{ Volumes: WireVolume[]; Warnings: string[] | null }> {
    const r = await d.request('GET', '/volumes');
    assert.equal(r.status, 200, r.body);
    return r.json() as { Volumes: WireVolume[]; Warnings: string[] | null };
  }
  const calls = (method: string) => plugin.calls.get(`VolumeDriver.${method}`) ?? 0;

  it('creates a volume through the plugin and shows the plugin\'s Mountpoint and Status', async () => {
    const creates = calls('Create');
    assert.equal((await docker('volume', 'create', '-d', 'testdriver', '-o', 'size=big', '--label', 'l=1', 'pv1')).trim(), 'pv1');
    assert.equal(calls('Create'), creates + 1);
    assert.deepEqual(plugin.createOpts.get('pv1'), { size: 'big' });
    assert.ok(existsSync(path.join(pluginRoot, 'pv1')));
    const v = await inspect('pv1');
    assert.deepEqual(v, {
      CreatedAt: '0001-01-01T00:00:00Z',
      Driver: 'testdriver',
      Labels: { l: '1' },
      Mountpoint: path.join(pluginRoot, 'pv1'),
      Name: 'pv1',
      Options: { size: 'big' },
      Scope: 'local',
      Status: { from: 'testdriver' },
    });
    // the API without DriverOpts sends Opts null, as dockerd
    const r = await d.request('POST', '/volumes/create', { json: { Name: 'pv-null', Driver: 'testdriver' } });
    assert.equal(r.status, 201, r.body);
    assert.equal(plugin.createOpts.get('pv-null'), null);
    // the same name again is the same volume: no second Create
    const again = await d.request('POST', '/volumes/create', { json: { Name: 'pv1', Driver: 'testdriver' } });
    assert.equal(again.status, 201, again.body);
    assert.equal(calls('Create'), creates + 2);
    const info = (await d.request('GET', '/info')).json() as { Plugins: { Volume: string[] } };
    assert.deepEqual(info.Plugins.Volume, ['local', 'testdriver']);
  });

  it('mounts a plugin volume once per run and unmounts it with the same ID; the data lands in the plugin\'s root', async () => {
    await docker('volume', 'create', '-d', 'testdriver', 'pv2');
    for (const text of ['first', 'second']) {
      const before = plugin.mounts.length;
      await docker('run', '--rm', '-v', 'pv2:/data', 'busybox', 'sh', '-c', `echo ${text} >> /data/f`);
      const run = plugin.mounts.slice(before);
      assert.equal(run.length, 2, JSON.stringify(run));
      assert.deepEqual(run.map((m) => [m.method, m.Name]), [['Mount', 'pv2'], ['Unmount', 'pv2']]);
      assert.equal(run[0].ID, run[1].ID);
      assert.match(run[0].ID, /^[0-9a-f]{64}$/);
    }
    assert.equal(readFileSync(path.join(pluginRoot, 'pv2', 'f'), 'utf8'), 'first\nsecond\n');

    // --volume-driver makes the named volume with the plugin; each start of a container is one Mount and one Unmount
    const before = plugin.mounts.length;
    await docker('run', '--name', 'pvc', '-v', 'pv3:/data', '--volume-driver', 'testdriver', 'busybox', 'sh', '-c', 'echo hi > /data/g');
    assert.equal((await inspect('pv3')).Driver, 'testdriver');
    assert.equal(readFileSync(path.join(pluginRoot, 'pv3', 'g'), 'utf8'), 'hi\n');
    await docker('start', '-a', 'pvc');
    const runs = plugin.mounts.slice(before);
    assert.deepEqual(runs.map((m) => m.method), ['Mount', 'Unmount', 'Mount', 'Unmount']);
    assert.ok(runs.every((m) => m.Name === 'pv3'));
    assert.equal(runs[0].ID, runs[1].ID);
    assert.equal(runs[2].ID, runs[3].ID);
    const mounts = ((await d.request('GET', '/containers/pvc/json')).json() as { Mounts: Array<Record<string, unknown>> }).Mounts;
    assert.deepEqual(mounts.map((m) => [m.Type, m.Name, m.Driver, m.Destination]), [['volume', 'pv3', 'testdriver', '/data']]);
  });

  it('fills a new plugin volume from the image with a Mount and Unmount of its own', async () => {
    const before = plugin.mounts.length;
    await docker('create', '--name', 'pcu', '-v', 'pcu:/etc', '--volume-driver', 'testdriver', 'busybox');
    assert.ok(existsSync(path.join(pluginRoot, 'pcu', 'passwd')));
    const copy = plugin.mounts.slice(before);
    assert.deepEqual(copy.map((m) => [m.method, m.Name]), [['Mount', 'pcu'], ['Unmount', 'pcu']]);
    assert.equal(copy[0].ID, copy[1].ID);
  });

  it('lists the plugin\'s volumes, also those berth never made', async () => {
    await docker('volume', 'create', '-d', 'testdriver', 'pv4');
    assert.deepEqual(await callPlugin(plugin.socket, 'VolumeDriver.Create', { Name: 'behind-berth' }), { Err: '' });
    const { Volumes, Warnings } = await list();
    assert.equal(Warnings, null);
    const mine = new Map(Volumes.filter((v) => v.Driver === 'testdriver').map((v) => [v.Name, v]));
    for (const name of ['pv4', 'behind-berth']) {
      assert.equal(mine.get(name)?.Mountpoint, path.join(pluginRoot, name), name);
      assert.equal(mine.get(name)?.Scope, 'local');
    }
    const cli = await docker('volume', 'ls', '--format', '{{.Driver}} {{.Name}}');
    assert.match(cli, /^testdriver behind-berth$/m);
    assert.match(cli, /^testdriver pv4$/m);
    assert.ok((await docker('volume', 'ls', '-q', '--filter', 'driver=testdriver')).trim().split('\n').includes('behind-berth'));
  });

  it('removes a plugin volume through VolumeDriver.Remove', async () => {
    await docker('volume', 'create', '-d', 'testdriver', 'pv5');
    const removes = calls('Remove');
    assert.equal((await docker('volume', 'rm', 'pv5')).trim(), 'pv5');
    assert.equal(calls('Remove'), removes + 1);
    assert.ok(!existsSync(path.join(pluginRoot, 'pv5')));
    assert.equal((await d.request('GET', '/volumes/pv5')).status, 404);
    // in use: 409 and no Remove
    await docker('create', '--name', 'pv6user', '-v', 'pv6:/d', '--volume-driver', 'testdriver', 'busybox');
    const r = await d.docker(['volume', 'rm', 'pv6']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /remove pv6: volume is in use - \[[0-9a-f]{64}\]/);
    assert.equal(calls('Remove'), removes + 1);
  });

  it('shows the plugin\'s errors in the CLI', async () => {
    await docker('volume', 'create', '-d', 'testdriver', 'pv7');
    plugin.failing.set('VolumeDriver.Mount', 'boom');
    const unmounts = calls('Unmount');
    const run = await d.docker(['run', '--rm', '-v', 'pv7:/data', 'busybox', 'true']);
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /error while mounting volume '[^']*': boom/);
    // the failed mount is not unmounted
    assert.equal(calls('Unmount'), unmounts);

    plugin.failing.set('VolumeDriver.Create', 'boom');
    const create = await d.request('POST', '/volumes/create', { json: { Name: 'pv8', Driver: 'testdriver' } });
    assert.equal(create.status, 500, create.body);
    assert.deepEqual(create.json(), { message: 'create pv8: boom' });
    const cli = await d.docker(['volume', 'create', '-d', 'testdriver', 'pv8']);
    assert.notEqual(cli.code, 0);
    assert.match(cli.stderr, /Error response from daemon: create pv8: boom/);
    assert.equal((await d.request('GET', '/volumes/pv8')).status, 404, 'nothing recorded');

    plugin.failing.set('VolumeDriver.Remove', 'cannot');
    const rm = await d.docker(['volume', 'rm', 'pv7']);
    assert.notEqual(rm.code, 0);
    assert.match(rm.stderr, /remove pv7: cannot/);
    assert.equal((await inspect('pv7')).Name, 'pv7', 'the record stays when Remove failed');
  });

  it('answers 404 for a driver nobody serves, at once', async () => {
    const started = Date.now();
    const r = await d.request('POST', '/volumes/create', { json: { Name: 'v', Driver: 'nosuch' } });
    assert.equal(r.status, 404, r.body);
    assert.deepEqual(r.json(), { message: 'create v: error looking up volume plugin nosuch: plugin "nosuch" not found' });
    assert.ok(Date.now() - started < 5000);
    const cli = await d.docker(['volume', 'create', '-d', 'nosuch', 'v']);
    assert.notEqual(cli.code, 0);
    assert.match(cli.stderr, /create v: error looking up volume plugin nosuch: plugin "nosuch" not found/);
    // (any 404 makes the CLI try a pull first, as with dockerd, unless told not to)
    const run = await d.docker(['run', '--rm', '--pull', 'never', '-v', 'nsv:/d', '--volume-driver', 'nosuch', 'busybox', 'true']);
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /create nsv: error looking up volume plugin nosuch: plugin "nosuch" not found/);
    assert.equal((await d.request('GET', '/volumes/nsv')).status, 404);
    const api = await d.request('POST', '/containers/create', { json: { Image: 'busybox', HostConfig: { Binds: ['nsv:/d'], VolumeDriver: 'nosuch' } } });
    assert.equal(api.status, 404, api.body);
    assert.deepEqual(api.json(), { message: 'create nsv: error looking up volume plugin nosuch: plugin "nosuch" not found' });
    assert.deepEqual((await d.request('GET', '/containers/json?all=1')).json(), []);
  });

  it('gives clear errors while the plugin is gone, keeps berth\'s record, and shows the volume again when it is back', async () => {
    const gone = await startVolumePlugin({ dir: pluginsDir, name: 'flaky', root: path.join(pluginRoot, 'flaky') });
    await docker('volume', 'create', '-d', 'flaky', 'fv');
    await gone.close();

    // no socket at all
    for (const [method, urlPath] of [['GET', '/volumes/fv'], ['DELETE', '/volumes/fv'], ['DELETE', '/volumes/fv?force=1']]) {
      const r = await d.request(method, urlPath);
      assert.ok(r.status >= 400, `${method} ${urlPath}: ${r.status}`);
      assert.match((r.json() as { message: string }).message, /fv.*flaky|flaky.*fv/, `${method} ${urlPath}`);
      assert.match((r.json() as { message: string }).message, /plugin "flaky" not found/);
    }
    const cliInspect = await d.docker(['volume', 'inspect', 'fv']);
    assert.notEqual(cliInspect.code, 0);
    assert.match(cliInspect.stderr, /flaky/);
    const cliRm = await d.docker(['volume', 'rm', 'fv']);
    assert.notEqual(cliRm.code, 0);
    assert.match(cliRm.stderr, /flaky/);

    // a socket nobody answers on (a plugin that crashed)
    const stale = path.join(pluginsDir, 'flaky.sock');
    execFileSync('python3', ['-c', `import socket; socket.socket(socket.AF_UNIX).bind(${JSON.stringify(stale)})`]);
    const r = await d.request('GET', '/volumes/fv');
    assert.equal(r.status, 500, r.body);
    assert.match((r.json() as { message: string }).message, /^get fv: error while checking if volume "fv" exists in driver "flaky": .*(ECONNREFUSED|connection refused)/);
    const rm = await d.request('DELETE', '/volumes/fv?force=1');
    assert.equal(rm.status, 500, rm.body);
    const run = await d.docker(['run', '--rm', '-v', 'fv:/d', 'busybox', 'true']);
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /error while mounting volume '[^']*': .*(ECONNREFUSED|connection refused)/);
    const listed = await list();
    assert.ok(listed.Volumes.some((v) => v.Name === 'fv' && v.Driver === 'flaky'), 'berth still lists its record');
    assert.match((listed.Warnings ?? []).join('\n'), /^list flaky: /);
    rmSync(stale);

    // back (a plugin that kept its volume)
    const back = await startVolumePlugin({ dir: pluginsDir, name: 'flaky', root: path.join(pluginRoot, 'flaky') });
    others.push(back);
    await callPlugin(back.socket, 'VolumeDriver.Create', { Name: 'fv' });
    const v = await inspect('fv');
    assert.deepEqual([v.Driver, v.Mountpoint], ['flaky', path.join(pluginRoot, 'flaky', 'fv')]);
    assert.match(await docker('volume', 'ls', '--format', '{{.Driver}} {{.Name}}'), /^flaky fv$/m);
    assert.equal((await docker('run', '--rm', '-v', 'fv:/d', 'busybox', 'sh', '-c', 'echo back > /d/f; cat /d/f')).trim(), 'back');
    assert.equal((await docker('volume', 'rm', 'fv')).trim(), 'fv');
    assert.equal(back.calls.get('VolumeDriver.Remove'), 1);
  });

  it('forgets a volume its plugin says it no longer has, as dockerd', async () => {
    await docker('volume', 'create', '-d', 'testdriver', 'pv9');
    assert.deepEqual(await callPlugin(plugin.socket, 'VolumeDriver.Remove', { Name: 'pv9' }), { Err: '' });
    const r = await d.request('GET', '/volumes/pv9');
    assert.equal(r.status, 404, r.body);
    assert.deepEqual(r.json(), { message: 'get pv9: no such volume' });
    assert.ok(!(await list()).Volumes.some((v) => v.Name === 'pv9'));
  });

  it('finds a plugin through a .spec file in the plugins directory', async () => {
    const elsewhere = tempDir('berth-voltest-specplugin-');
    const specPlugin = await startVolumePlugin({ dir: elsewhere, name: 'specdriver', root: path.join(elsewhere, 'root') });
    others.push(specPlugin);
    writeFileSync(path.join(pluginsDir, 'specdriver.spec'), `unix://${specPlugin.socket}\n`);
    await docker('volume', 'create', '-d', 'specdriver', 'sv');
    assert.equal(specPlugin.calls.get('Plugin.Activate'), 1);
    assert.equal(specPlugin.calls.get('VolumeDriver.Create'), 1);
    assert.equal((await docker('run', '--rm', '-v', 'sv:/d', 'busybox', 'sh', '-c', 'echo spec > /d/f; cat /d/f')).trim(), 'spec');
    assert.equal(readFileSync(path.join(elsewhere, 'root', 'sv', 'f'), 'utf8'), 'spec\n');
    assert.equal((await inspect('sv')).Driver, 'specdriver');
    await docker('volume', 'rm', 'sv');
    rmSync(path.join(pluginsDir, 'specdriver.spec'));
  });
});
