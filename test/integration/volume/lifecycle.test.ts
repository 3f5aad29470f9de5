// docker volume create, ls, inspect, rm and prune, /system/df's Volumes, /info's volume plugins and
// the Plugin routes, against a real berthd: the codes, bodies and messages the reference engine
// (dockerd 20.10) gives for the same requests.
import type { Volume as WireVolume } from '../../../src/api/types/volume.js';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { tempDir, type Berthd } from '../../helpers/berthd.js';
import { startWithBusybox, teardown } from '../../helpers/containers.js';
import type { RawResponse } from '../../helpers/http.js';


const HEX64 = /^[0-9a-f]{64}$/;
const q = (value: unknown) => encodeURIComponent(JSON.stringify(value));

describe('docker volume: create, ls, inspect, rm, prune', () => {
  let d: Berthd;
  before(async () => {
    d = await startWithBusybox({ args: ['--plugins-dir', tempDir('berth-voltest-plugins-')] });
  });
  after(async () => {
    await teardown(d);
  });
  // each test starts with no container and no volume
  afterEach(async () => {
    await removeAll();
  });

  async function docker(...args: string[]): Promise<string> {
    const r = await d.docker(args);
    assert.equal(r.code, 0, `docker ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  }
  async function dockerFails(args: string[], stderr: string | RegExp): Promise<void> {
    const r = await d.docker(args);
    assert.notEqual(r.code, 0, `docker ${args.join(' ')} should fail: ${r.stdout}`);
    if (typeof stderr === 'string') assert.ok(r.stderr.includes(stderr), `docker ${args.join(' ')}: ${r.stderr}`);
    else assert.match(r.stderr, stderr);
  }
  async function api(method: string, urlPath: string, body?: unknown): Promise<RawResponse> {
    return d.request(method, urlPath, body === undefined ? {} : { json: body });
  }
  async function expectError(method: string, urlPath: string, body: unknown, status: number, message: string): Promise<void> {
    const r = await api(method, urlPath, body);
    assert.equal(r.status, status, `${method} ${urlPath}: ${r.body}`);
    assert.deepEqual(r.json(), { message }, `${method} ${urlPath}`);
  }
  async function names(filters?: unknown): Promise<string[]> {
    const r = await api('GET', filters === undefined ? '/volumes' : `/volumes?filters=${q(filters)}`);
    assert.equal(r.status, 200, r.body);
    const list = r.json() as { Volumes: WireVolume[]; Warnings: unknown };
    assert.equal(list.Warnings, null);
    return list.Volumes.map((v) => v.Name).sort();
  }
  async function removeAll(): Promise<void> {
    const r = await api('GET', '/containers/json?all=1');
    for (const c of r.json() as Array<{ Id: string }>) assert.equal((await api('DELETE', `/containers/${c.Id}?force=1`)).status, 204);
    for (const name of await names()) assert.equal((await api('DELETE', `/volumes/${name}`)).status, 204, name);
  }
  async function createContainer(name: string, binds: string[], start = false): Promise<string> {
    const r = await api('POST', `/containers/create?name=${name}`, { Image: 'busybox', Cmd: ['sleep', '300'], HostConfig: { Binds: binds } });
    assert.equal(r.status, 201, r.body);
    const id = (r.json() as { Id: string }).Id;
    if (start) assert.equal((await api('POST', `/containers/${id}/start`)).status, 204);
    return id;
  }

  it('creates a volume through the API with the fields dockerd gives, in its key order', async () => {
    const r = await api('POST', '/volumes/create', { Name: 'v1' });
    assert.equal(r.status, 201, r.body);
    const v = r.json() as WireVolume;
    assert.deepEqual(Object.keys(v), ['CreatedAt', 'Driver', 'Labels', 'Mountpoint', 'Name', 'Options', 'Scope']);
    assert.match(v.CreatedAt ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.ok(Math.abs(Date.parse(v.CreatedAt ?? '') - Date.now()) < 60_000, v.CreatedAt);
    assert.deepEqual({ ...v, CreatedAt: undefined }, {
      CreatedAt: undefined,
      Driver: 'local',
      Labels: null,
      Mountpoint: path.join(d.dataRoot, 'volumes', 'v1', '_data'),
      Name: 'v1',
      Options: null,
      Scope: 'local',
    });
    const inspected = await api('GET', '/volumes/v1');
    assert.equal(inspected.status, 200);
    assert.deepEqual(inspected.json(), v);
    assert.ok(!('UsageData' in (inspected.json() as object)));

    // empty maps are kept as sent
    const empty = (await api('POST', '/volumes/create', { Name: 'v2', DriverOpts: {}, Labels: {} })).json() as WireVolume;
    assert.deepEqual([empty.Labels, empty.Options], [{}, {}]);
  });

  it('docker volume create, inspect and ls show the volume', async () => {
    assert.equal((await docker('volume', 'create', 'cli1')).trim(), 'cli1');
    assert.equal((await docker('volume', 'create', '--label', 'a=b', '--label', 'c', 'cli2')).trim(), 'cli2');
    const [v] = JSON.parse(await docker('volume', 'inspect', 'cli1')) as WireVolume[];
    // the docker CLI of today leaves empty Labels and DriverOpts out of its request (20.10's sent {}): null, as sent
    assert.deepEqual([v.Driver, v.Labels, v.Options, v.Scope, v.Mountpoint], ['local', null, null, 'local', path.join(d.dataRoot, 'volumes', 'cli1', '_data')]);
    const [v2] = JSON.parse(await docker('volume', 'inspect', 'cli2')) as WireVolume[];
    assert.deepEqual(v2.Labels, { a: 'b', c: '' });
    assert.equal((await docker('volume', 'inspect', '--format', '{{.Mountpoint}}', 'cli2')).trim(), path.join(d.dataRoot, 'volumes', 'cli2', '_data'));
    const ls = await docker('volume', 'ls', '--format', '{{.Driver}} {{.Name}}');
    assert.deepEqual(ls.trim().split('\n').sort(), ['local cli1', 'local cli2']);
    assert.deepEqual((await docker('volume', 'ls', '-q')).trim().split('\n').sort(), ['cli1', 'cli2']);
    await dockerFails(['volume', 'inspect', 'nosuch'], /No such volume: nosuch|get nosuch: no such volume/);
  });

  it('names a volume created without a name with 64 hex characters, and adds no label', async () => {
    for (const body of [{}, { Name: '' }, null]) {
      const r = await api('POST', '/volumes/create', body);
      assert.equal(r.status, 201, r.body);
      const v = r.json() as WireVolume;
      assert.match(v.Name, HEX64);
      assert.equal(v.Labels, null);
    }
    assert.match((await docker('volume', 'create')).trim(), HEX64);
    assert.equal((await names()).length, 4);
  });

  it('gives back the existing volume for the same name, ignoring new labels and options', async () => {
    const first = (await api('POST', '/volumes/create', { Name: 'same', Labels: { a: '1' } })).json() as WireVolume;
    writeFileSync(path.join(d.dataRoot, 'volumes', 'same', '_data', 'kept'), 'kept');
    const again = await api('POST', '/volumes/create', { Name: 'same', Labels: { b: '2' }, DriverOpts: { type: 'tmpfs', device: 'tmpfs' } });
    assert.equal(again.status, 201, again.body);
    const second = again.json() as WireVolume;
    assert.deepEqual([second.Labels, second.Options, second.Mountpoint], [{ a: '1' }, null, first.Mountpoint]);
    assert.equal((await docker('volume', 'create', '--label', 'x=y', 'same')).trim(), 'same');
    assert.deepEqual(((await api('GET', '/volumes/same')).json() as WireVolume).Labels, { a: '1' });
    assert.deepEqual(await names(), ['same']);
    // the data survived: nothing was made anew
    assert.equal((await docker('run', '--rm', '-v', 'same:/d', 'busybox', 'cat', '/d/kept')).trim(), 'kept');
  });

  it('filters the list by dangling, driver, label and name as dockerd does', async () => {
    await api('POST', '/volumes/create', { Name: 'fa', Labels: { grp: 'x', k: '' } });
    await api('POST', '/volumes/create', { Name: 'fb', Labels: { grp: 'y' } });
    await api('POST', '/volumes/create', { Name: 'other' });
    await api('POST', '/volumes/create', { Name: 'used1' });
    await api('POST', '/volumes/create', { Name: 'used2' });
    await createContainer('f-stopped', ['used1:/d']);
    await createContainer('f-running', ['used2:/d'], true);

    assert.deepEqual(await names({ dangling: ['true'] }), ['fa', 'fb', 'other']);
    assert.deepEqual(await names({ dangling: ['1'] }), ['fa', 'fb', 'other']);
    assert.deepEqual(await names({ dangling: ['false'] }), ['used1', 'used2']);
    assert.deepEqual(await names({ dangling: ['0'] }), ['used1', 'used2']);
    assert.deepEqual(await names({ dangling: { true: true } }), ['fa', 'fb', 'other']);
    assert.deepEqual(await names({ driver: ['local'] }), ['fa', 'fb', 'other', 'used1', 'used2']);
    assert.deepEqual(await names({ driver: ['loc'] }), []);
    assert.deepEqual(await names({ label: ['grp'] }), ['fa', 'fb']);
    assert.deepEqual(await names({ label: ['grp=y'] }), ['fb']);
    assert.deepEqual(await names({ label: ['k='] }), ['fa']);
    assert.deepEqual(await names({ label: ['grp', 'k'] }), ['fa']);
    assert.deepEqual(await names({ name: ['f'] }), ['fa', 'fb']);
    assert.deepEqual(await names({ name: ['ed'] }), ['used1', 'used2']);
    assert.deepEqual(await names({ name: ['^u.*1$', 'oth'] }), ['other', 'used1']);
    assert.deepEqual(await names({ name: ['^f'], label: ['grp=x'] }), ['fa']);

    await expectError('GET', `/volumes?filters=${q({ bogus: ['x'] })}`, undefined, 400, "Invalid filter 'bogus'");
    await expectError('GET', `/volumes?filters=${q({ 'label!': ['x'] })}`, undefined, 400, "Invalid filter 'label!'");
    await expectError('GET', `/volumes?filters=${q({ dangling: ['bad'] })}`, undefined, 400, "Invalid filter 'dangling=[bad]'");

    const out = await docker('volume', 'ls', '-q', '--filter', 'dangling=true', '--filter', 'label=grp');
    assert.deepEqual(out.trim().split('\n').sort(), ['fa', 'fb']);
    await dockerFails(['volume', 'ls', '--filter', 'bogus=1'], "Invalid filter 'bogus'");
  });

  it('removes a volume (204), says 404 for a missing one unless forced, and 409 while containers use it, forced or not', async () => {
    await api('POST', '/volumes/create', { Name: 'rm1' });
    const r = await api('DELETE', '/volumes/rm1');
    assert.equal(r.status, 204);
    assert.equal(r.body, '');
    assert.ok(!existsSync(path.join(d.dataRoot, 'volumes', 'rm1')), 'the directory goes with the volume');
    await expectError('GET', '/volumes/rm1', undefined, 404, 'get rm1: no such volume');
    await expectError('DELETE', '/volumes/rm1', undefined, 404, 'get rm1: no such volume');
    for (const force of ['true', '1']) assert.equal((await api('DELETE', `/volumes/rm1?force=${force}`)).status, 204);

    assert.equal((await docker('volume', 'create', 'busy')).trim(), 'busy');
    const stopped = await createContainer('rm-stopped', ['busy:/d']);
    for (const force of ['', '?force=1']) await expectError('DELETE', `/volumes/busy${force}`, undefined, 409, `remove busy: volume is in use - [${stopped}]`);
    const running = await createContainer('rm-running', ['busy:/d'], true);
    const r2 = await api('DELETE', '/volumes/busy?force=1');
    assert.equal(r2.status, 409);
    const message = (r2.json() as { message: string }).message;
    const ids = /^remove busy: volume is in use - \[(.*)\]$/.exec(message)?.[1].split(', ').sort();
    assert.deepEqual(ids, [stopped, running].sort(), message);
    await dockerFails(['volume', 'rm', 'busy'], 'remove busy: volume is in use - [');
    await dockerFails(['volume', 'rm', '-f', 'busy'], 'remove busy: volume is in use - [');
    await dockerFails(['volume', 'rm', 'nosuch'], 'get nosuch: no such volume');
    assert.equal((await docker('volume', 'rm', '-f', 'nosuch')).trim(), 'nosuch');

    // the running user goes, the stopped one still holds it
    assert.equal((await api('DELETE', `/containers/${running}?force=1`)).status, 204);
    await expectError('DELETE', '/volumes/busy', undefined, 409, `remove busy: volume is in use - [${stopped}]`);
    assert.equal((await api('DELETE', `/containers/${stopped}`)).status, 204);
    assert.equal((await docker('volume', 'rm', 'busy')).trim(), 'busy');
    assert.deepEqual(await names(), []);
  });

  it('prunes every unused local volume without options, named or anonymous, and counts the bytes', async () => {
    assert.deepEqual((await api('POST', '/volumes/prune')).json(), { VolumesDeleted: [], SpaceReclaimed: 0 });

    await api('POST', '/volumes/create', { Name: 'p-named' });
    const anon = ((await api('POST', '/volumes/create', {})).json() as WireVolume).Name;
    await api('POST', '/volumes/create', { Name: 'p-used' });
    await api('POST', '/volumes/create', { Name: 'p-opts', DriverOpts: { type: 'tmpfs', device: 'tmpfs' } });
    await api('POST', '/volumes/create', { Name: 'p-empty-opts', DriverOpts: {} });
    await createContainer('p-user', ['p-used:/d']);
    // 1234 bytes, and 100 in a subdirectory
    const data = path.join(d.dataRoot, 'volumes', 'p-named', '_data');
    writeFileSync(path.join(data, 'a'), Buffer.alloc(1234));
    mkdirSync(path.join(data, 'sub'));
    writeFileSync(path.join(data, 'sub', 'b'), Buffer.alloc(100));

    const r = await api('POST', '/volumes/prune');
    assert.equal(r.status, 200, r.body);
    const pruned = r.json() as { VolumesDeleted: string[]; SpaceReclaimed: number };
    assert.deepEqual(pruned.VolumesDeleted.sort(), [anon, 'p-empty-opts', 'p-named'].sort());
    assert.equal(pruned.SpaceReclaimed, 1334);
    assert.deepEqual(await names(), ['p-opts', 'p-used']);
    assert.deepEqual((await api('POST', '/volumes/prune')).json(), { VolumesDeleted: [], SpaceReclaimed: 0 });

    await expectError('POST', `/volumes/prune?filters=${q({ all: ['true'] })}`, undefined, 400, "Invalid filter 'all'");
    await expectError('POST', `/volumes/prune?filters=${q({ dangling: ['true'] })}`, undefined, 400, "Invalid filter 'dangling'");
    await expectError('POST', `/volumes/prune?filters=${q({ name: ['x'] })}`, undefined, 400, "Invalid filter 'name'");
  });

  it('prunes by label and label! filters', async () => {
    await api('POST', '/volumes/create', { Name: 'l1', Labels: { grp: 'a', k: '1' } });
    await api('POST', '/volumes/create', { Name: 'l2', Labels: { grp: 'a' } });
    await api('POST', '/volumes/create', { Name: 'l3', Labels: { grp: 'b' } });
    await api('POST', '/volumes/create', { Name: 'l4' });
    const prune = async (filters: unknown) => ((await api('POST', `/volumes/prune?filters=${q(filters)}`)).json() as { VolumesDeleted: string[] }).VolumesDeleted.sort();
    assert.deepEqual(await prune({ label: ['grp=b'] }), ['l3']);
    assert.deepEqual(await prune({ label: ['grp'], 'label!': ['k=1'] }), ['l2']);
    assert.deepEqual(await prune({ 'label!': ['grp'] }), ['l4']);
    assert.deepEqual(await names(), ['l1']);
    // the CLI's prune: --filter label=... and -f
    const out = await docker('volume', 'prune', '-f', '--filter', 'label=k=1');
    assert.match(out, /Deleted Volumes:\nl1\n/);
    assert.deepEqual(await names(), []);
  });

  it('shows the local volumes without options in /system/df, with their reference counts and sizes', async () => {
    await api('POST', '/volumes/create', { Name: 'df1' });
    await api('POST', '/volumes/create', { Name: 'df2', DriverOpts: { type: 'tmpfs', device: 'tmpfs' } });
    await api('POST', '/volumes/create', { Name: 'df3', DriverOpts: {} });
    writeFileSync(path.join(d.dataRoot, 'volumes', 'df1', '_data', 'f'), Buffer.alloc(10000));
    await createContainer('df-running', ['df1:/d'], true);
    await createContainer('df-created', ['df1:/d']);
    const r = await api('GET', '/system/df');
    assert.equal(r.status, 200, r.body);
    const df = r.json() as { Volumes: WireVolume[] };
    const byName = new Map(df.Volumes.map((v) => [v.Name, v]));
    assert.deepEqual([...byName.keys()].sort(), ['df1', 'df3']);
    const df1 = byName.get('df1') as WireVolume;
    assert.deepEqual(Object.keys(df1), ['CreatedAt', 'Driver', 'Labels', 'Mountpoint', 'Name', 'Options', 'Scope', 'UsageData']);
    assert.deepEqual(df1.UsageData, { RefCount: 2, Size: 10000 });
    assert.deepEqual(Object.keys(df1.UsageData ?? {}), ['RefCount', 'Size']);
    assert.deepEqual(byName.get('df3')?.UsageData, { RefCount: 0, Size: 0 });
    const cli = await docker('system', 'df', '--format', '{{.Type}} {{.TotalCount}} {{.Active}}');
    assert.match(cli, /^Local Volumes 2 1$/m);
  });

  it('tells create (at every call), destroy and prune as events, prune with the bytes it reclaimed and no destroy', async () => {
    const since = (Date.now() / 1000).toFixed(3);
    await api('POST', '/volumes/create', { Name: 'ev1' });
    await api('POST', '/volumes/create', { Name: 'ev1' });
    assert.equal((await api('DELETE', '/volumes/ev1')).status, 204);
    await api('POST', '/volumes/create', { Name: 'ev2' });
    writeFileSync(path.join(d.dataRoot, 'volumes', 'ev2', '_data', 'f'), Buffer.alloc(7));
    await api('POST', '/volumes/prune');
    assert.equal((await api('POST', `/volumes/prune?filters=${q({ bogus: ['1'] })}`)).status, 400);
    const until = (Date.now() / 1000 + 1).toFixed(3);
    const r = await api('GET', `/events?since=${since}&until=${until}&filters=${q({ type: ['volume'] })}`);
    assert.equal(r.status, 200);
    const events = r.body
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown> & { Action: string; Actor: { ID: string; Attributes: Record<string, string> } })
      // (an earlier test's clean-up may fall within `since`: berthd's clock is its own)
      .filter((e) => ['ev1', 'ev2', ''].includes(e.Actor.ID));
    assert.deepEqual(
      events.map((e) => [e.Action, e.Actor.ID, e.Actor.Attributes]),
      [
        ['create', 'ev1', { driver: 'local' }],
        ['create', 'ev1', { driver: 'local' }],
        ['destroy', 'ev1', { driver: 'local' }],
        ['create', 'ev2', { driver: 'local' }],
        ['prune', '', { reclaimed: '7' }],
      ],
    );
    // no status, id or from: only the typed fields
    assert.deepEqual(Object.keys(events[0]).sort(), ['Action', 'Actor', 'Type', 'scope', 'time', 'timeNano']);
    assert.equal(events[0].scope, 'local');
  });

  it('lists local among /info volume plugins, and answers the Plugin routes as dockerd with no managed plugins', async () => {
    const info = (await api('GET', '/info')).json() as { Plugins: { Volume: string[] } };
    assert.ok(info.Plugins.Volume.includes('local'), JSON.stringify(info.Plugins));
    const list = await api('GET', '/plugins');
    assert.equal(list.status, 200);
    assert.deepEqual(list.json(), []);
    assert.deepEqual((await api('GET', `/plugins?filters=${q({ capability: ['volumedriver'] })}`)).json(), []);
    await expectError('GET', '/plugins/x/json', undefined, 404, 'plugin "x" not found');
    await expectError('DELETE', '/plugins/x', undefined, 404, 'plugin "x" not found');
    assert.equal((await api('POST', '/plugins/pull?remote=x')).status, 501);
    assert.equal((await docker('plugin', 'ls', '-q')).trim(), '');
  });
});
