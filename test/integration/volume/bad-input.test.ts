// Bad volume requests against a real berthd, with the reference engine's (dockerd 20.10) codes and
// messages: invalid names through POST /volumes/create and through a container's Binds and Mounts
// (nothing made), unknown drivers and local options, bodies of the wrong shape; and volume
// directories made into symlinks out of the volumes root, which must never lead a mount, a copy
// or a removal outside.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Berthd, tempDir } from '../../helpers/berthd.js';
import { startWithBusybox, teardown } from '../../helpers/containers.js';

const INVALID = (name: string) =>
  `create ${name}: "${name}" includes invalid characters for a local volume name, only "[a-zA-Z0-9][a-zA-Z0-9_.-]" are allowed. If you intended to pass a host directory, use absolute path`;
const TOO_SHORT = (name: string) => `create ${name}: volume name is too short, names should be at least two alphanumeric characters`;

/** Every file under dir with its content, to compare before and after. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const p = path.join(rel, e.name);
      if (e.isDirectory()) {
        out[`${p}/`] = '';
        walk(p);
      } else out[p] = readFileSync(path.join(dir, p), 'utf8');
    }
  };
  walk('');
  return out;
}

describe('bad volume input', () => {
  let d: Berthd;
  let pluginsDir: string;
  before(async () => {
    pluginsDir = tempDir('berth-voltest-plugins-');
    d = await startWithBusybox({ args: ['--plugins-dir', pluginsDir] });
  });
  after(async () => {
    await teardown(d);
  });

  async function expectError(method: string, urlPath: string, body: unknown, status: number, message?: string): Promise<void> {
    const r = await d.request(method, urlPath, typeof body === 'string' ? { body, headers: { 'Content-Type': 'application/json' } } : body === undefined ? {} : { json: body });
    assert.equal(r.status, status, `${method} ${urlPath} ${JSON.stringify(body)}: ${r.body}`);
    if (message !== undefined) assert.deepEqual(r.json(), { message }, `${method} ${urlPath} ${JSON.stringify(body)}`);
  }
  async function volumeNames(): Promise<string[]> {
    return ((await d.request('GET', '/volumes')).json() as { Volumes: Array<{ Name: string }> }).Volumes.map((v) => v.Name).sort();
  }
  async function containerCount(): Promise<number> {
    return ((await d.request('GET', '/containers/json?all=1')).json() as unknown[]).length;
  }

  it('refuses invalid names at POST /volumes/create with a 400, and makes nothing', async () => {
    // Go counts bytes: one byte is too short, whatever it is
    for (const name of ['a', '.', '/']) await expectError('POST', '/volumes/create', { Name: name }, 400, TOO_SHORT(name));
    for (const name of ['a/b', '..', '-x', '/x', 'a b', '_x', '.x', 'a:b', 'é', '../../etc']) {
      await expectError('POST', '/volumes/create', { Name: name }, 400, INVALID(name));
    }
    assert.deepEqual(await volumeNames(), []);
    assert.deepEqual(readdirSync(path.join(d.dataRoot, 'volumes')), []);
    for (const name of ['ab', 'a.b_c-d', 'A9']) {
      const r = await d.request('POST', '/volumes/create', { json: { Name: name } });
      assert.equal(r.status, 201, r.body);
      assert.equal((await d.request('DELETE', `/volumes/${name}`)).status, 204);
    }
    // through the CLI
    const cli = await d.docker(['volume', 'create', 'a/b']);
    assert.notEqual(cli.code, 0);
    assert.ok(cli.stderr.includes(INVALID('a/b')), cli.stderr);
  });

  it('refuses invalid names in a container\'s Binds and Mounts with the same 400s, and makes no container or volume', async () => {
    const create = (hostConfig: unknown) => ({ Image: 'busybox', HostConfig: hostConfig });
    await expectError('POST', '/containers/create', create({ Binds: ['a:/d'] }), 400, TOO_SHORT('a'));
    for (const name of ['x/y', '../x', '-x', '_x']) await expectError('POST', '/containers/create', create({ Binds: [`${name}:/d`] }), 400, INVALID(name));
    await expectError('POST', '/containers/create', create({ Mounts: [{ Type: 'volume', Source: 'a', Target: '/d' }] }), 400, TOO_SHORT('a'));
    for (const name of ['/abs', '..', 'a/b', '-x']) {
      await expectError('POST', '/containers/create', create({ Mounts: [{ Type: 'volume', Source: name, Target: '/d' }] }), 400, INVALID(name));
    }
    // the other mistakes of a volume's spec
    await expectError('POST', '/containers/create', create({ Binds: ['ab:d'] }), 500, `invalid volume specification: 'ab:d': invalid mount config for type "volume": invalid mount path: 'd' mount path must be absolute`);
    await expectError('POST', '/containers/create', create({ Binds: ['ab:/d:bogus'] }), 500, 'invalid mode: bogus');
    await expectError('POST', '/containers/create', create({ Binds: ['ab:/'] }), 500, `invalid volume specification: 'ab:/': invalid mount config for type "volume": invalid specification: destination can't be '/'`);
    await expectError('POST', '/containers/create', create({ Binds: ['qb:/d'], Mounts: [{ Type: 'volume', Source: 'qc', Target: '/d' }] }), 400, 'Duplicate mount point: /d');
    await expectError(
      'POST', '/containers/create', create({ Mounts: [{ Type: 'volume', Source: 'ab', Target: '/d', BindOptions: { Propagation: 'shared' } }] }), 400,
      'invalid mount config for type "volume": field BindOptions must not be specified',
    );
    await expectError(
      'POST', '/containers/create', create({ Mounts: [{ Type: 'volume', Source: 'qz', Target: '/d', VolumeOptions: { DriverConfig: { Name: 'local', Options: { foo: 'bar' } } } }] }), 400,
      'create qz: invalid option: "foo"',
    );
    assert.equal(await containerCount(), 0);
    assert.deepEqual(await volumeNames(), []);

    // the CLI shows the daemon's message
    const run = await d.docker(['run', '--rm', '-v', 'x/y:/d', 'busybox', 'true']);
    assert.notEqual(run.code, 0);
    assert.ok(run.stderr.includes(INVALID('x/y')), run.stderr);
    assert.equal(await containerCount(), 0);
  });

  it('answers 404 for an unknown driver, whatever the name', async () => {
    for (const name of ['nd1', 'v']) {
      await expectError('POST', '/volumes/create', { Name: name, Driver: 'nosuch' }, 404, `create ${name}: error looking up volume plugin nosuch: plugin "nosuch" not found`);
    }
    await expectError('POST', '/volumes/create', { Name: 'nd2', Driver: 'nosuch:latest' }, 404, 'create nd2: error looking up volume plugin nosuch:latest: plugin "nosuch:latest" not found');
    // a known name with an unknown driver: the driver is looked up first
    assert.equal((await d.request('POST', '/volumes/create', { json: { Name: 'known' } })).status, 201);
    await expectError('POST', '/volumes/create', { Name: 'known', Driver: 'nosuch' }, 404, 'create known: error looking up volume plugin nosuch: plugin "nosuch" not found');
    // a driver name is never a path
    await expectError('POST', '/volumes/create', { Name: 'nd3', Driver: '../x' }, 404);
    assert.equal((await d.request('DELETE', '/volumes/known')).status, 204);
    assert.deepEqual(await volumeNames(), []);
  });

  it('refuses the local driver\'s unknown and incomplete options with dockerd\'s 400s', async () => {
    const cases: Array<[string, Record<string, string>, string]> = [
      ['o1', { foo: 'bar' }, 'invalid option: "foo"'],
      ['o2', { foo: 'bar', type: 'tmpfs', device: 'tmpfs' }, 'invalid option: "foo"'],
      ['t2', { type: 'tmpfs' }, 'missing required option: "device"'],
      ['t3', { device: 'tmpfs' }, 'missing required option: "type"'],
      ['t4', { o: 'size=1m' }, 'missing required option: "device"'],
      ['sz1', { size: '10m' }, 'quota size requested but no quota support'],
      ['sz2', { size: '10m', type: 'tmpfs', device: 'tmpfs' }, 'quota size requested but no quota support'],
    ];
    for (const [name, opts, message] of cases) await expectError('POST', '/volumes/create', { Name: name, DriverOpts: opts }, 400, `create ${name}: ${message}`);
    const cli = await d.docker(['volume', 'create', '-o', 'foo=bar', 'o3']);
    assert.notEqual(cli.code, 0);
    assert.ok(cli.stderr.includes('create o3: invalid option: "foo"'), cli.stderr);
    assert.deepEqual(await volumeNames(), []);
    assert.deepEqual(readdirSync(path.join(d.dataRoot, 'volumes')), []);
  });

  it('refuses bodies of the wrong shape with Go\'s messages', async () => {
    await expectError('POST', '/volumes/create', undefined, 400, 'got EOF while reading request body');
    await expectError('POST', '/volumes/create', '{bad', 400);
    await expectError('POST', '/volumes/create', [], 400, 'json: cannot unmarshal array into Go value of type volume.VolumeCreateBody');
    await expectError('POST', '/volumes/create', '"str"', 400, 'json: cannot unmarshal string into Go value of type volume.VolumeCreateBody');
    await expectError('POST', '/volumes/create', { Name: 5 }, 400, 'json: cannot unmarshal number into Go struct field VolumeCreateBody.Name of type string');
    await expectError('POST', '/volumes/create', { Driver: true }, 400, 'json: cannot unmarshal bool into Go struct field VolumeCreateBody.Driver of type string');
    await expectError('POST', '/volumes/create', { Labels: 'x' }, 400, 'json: cannot unmarshal string into Go struct field VolumeCreateBody.Labels of type map[string]string');
    await expectError('POST', '/volumes/create', { DriverOpts: { a: 1 } }, 400, 'json: cannot unmarshal number into Go struct field VolumeCreateBody.DriverOpts of type string');
    await expectError('POST', '/volumes/create', { Labels: ['a'] }, 400, 'json: cannot unmarshal array into Go struct field VolumeCreateBody.Labels of type map[string]string');
    await expectError('GET', '/volumes?filters=notjson', undefined, 400);
    // (dockerd answers this one with a 500)
    await expectError('POST', '/volumes/prune?filters=notjson', undefined, 400);
    assert.deepEqual(await volumeNames(), []);
    // keys are matched without regard to case, as Go's decoder does
    const r = await d.request('POST', '/volumes/create', { json: { name: 'lower', labels: { a: 'b' } } });
    assert.equal(r.status, 201, r.body);
    assert.deepEqual([(r.json() as { Name: string }).Name, (r.json() as { Labels: unknown }).Labels], ['lower', { a: 'b' }]);
    assert.equal((await d.request('DELETE', '/volumes/lower')).status, 204);
  });

  describe('volume directories made into symlinks out of the volumes root', () => {
    let outside: string;
    let expected: Record<string, string>;
    const volumes = () => path.join(d.dataRoot, 'volumes');
    before(async () => {
      outside = tempDir('berth-voltest-outside-');
      mkdirSync(path.join(outside, '_data'));
      writeFileSync(path.join(outside, 'keep'), 'secret\n');
      writeFileSync(path.join(outside, '_data', 'keep2'), 'secret2\n');
      expected = snapshot(outside);
      // evil-rec has a record; after a restart its directory is a link out; evil-bare is a link that was never a volume
      assert.equal((await d.request('POST', '/volumes/create', { json: { Name: 'evil-rec' } })).status, 201);
      assert.equal((await d.request('POST', '/volumes/create', { json: { Name: 'evil-rec-opts', DriverOpts: { type: 'tmpfs', device: 'tmpfs' } } })).status, 201);
      const { netns, dataRoot } = d;
      await teardown(d);
      for (const name of ['evil-rec', 'evil-rec-opts']) {
        rmSync(path.join(volumes(), name), { recursive: true });
        symlinkSync(outside, path.join(volumes(), name));
      }
      symlinkSync(outside, path.join(volumes(), 'evil-bare'));
      d = await Berthd.start({ netns, dataRoot, args: ['--plugins-dir', pluginsDir] });
    });
    after(() => {
      assert.deepEqual(snapshot(outside), expected, 'nothing outside the volumes root was touched');
    });

    const message = async (r: Promise<{ status: number; body: string; json(): unknown }>, status: number | RegExp): Promise<string> => {
      const res = await r;
      if (typeof status === 'number') assert.equal(res.status, status, res.body);
      else assert.match(String(res.status), status, res.body);
      return (res.json() as { message: string }).message;
    };

    it('does not take a bare link for a volume, nor make or remove one through it', async () => {
      assert.ok(!(await volumeNames()).includes('evil-bare'));
      await expectError('GET', '/volumes/evil-bare', undefined, 404, 'get evil-bare: no such volume');
      await expectError('DELETE', '/volumes/evil-bare', undefined, 404, 'get evil-bare: no such volume');
      assert.equal((await d.request('DELETE', '/volumes/evil-bare?force=1')).status, 204);
      assert.match(await message(d.request('POST', '/volumes/create', { json: { Name: 'evil-bare' } }), /^[45]\d\d$/), /evil-bare/);
      const run = await d.docker(['run', '--rm', '-v', 'evil-bare:/etc', 'busybox', 'true']);
      assert.notEqual(run.code, 0);
      assert.match(run.stderr, /evil-bare/);
      assert.deepEqual(snapshot(outside), expected);
      assert.equal(await containerCount(), 0);
    });

    it('neither mounts, fills nor removes a recorded volume whose directory became a link', async () => {
      for (const name of ['evil-rec', 'evil-rec-opts']) {
        // /etc exists in the image: a copy-up would write outside
        const created = await d.request('POST', '/containers/create', { json: { Image: 'busybox', HostConfig: { Binds: [`${name}:/etc`] } } });
        assert.ok(created.status >= 400, `${name}: ${created.status} ${created.body}`);
        // /d does not: the create passes and the start must fail
        const c = await d.request('POST', '/containers/create', { json: { Image: 'busybox', Cmd: ['ls', '/d'], HostConfig: { Binds: [`${name}:/d`] } } });
        assert.equal(c.status, 201, c.body);
        const id = (c.json() as { Id: string }).Id;
        assert.match(await message(d.request('POST', `/containers/${id}/start`), /^5\d\d$/), new RegExp(`^error while mounting volume '[^']*': .*${name}`));
        assert.equal((await d.request('DELETE', `/containers/${id}`)).status, 204);
        const rm = await d.request('DELETE', `/volumes/${name}`);
        assert.ok(rm.status >= 400, `${name}: ${rm.status} ${rm.body}`);
        assert.match((rm.json() as { message: string }).message, new RegExp(`^remove ${name}: .*`));
        assert.equal((await d.request('DELETE', `/volumes/${name}?force=1`)).status, rm.status);
        assert.deepEqual(snapshot(outside), expected, name);
      }
      // prune passes them by, and df does not read through them
      const pruned = (await d.request('POST', '/volumes/prune')).json() as { VolumesDeleted: string[] };
      assert.ok(!pruned.VolumesDeleted.includes('evil-rec'), JSON.stringify(pruned));
      assert.equal((await d.request('GET', '/system/df')).status, 200);
      assert.deepEqual(snapshot(outside), expected);
    });

    it('does not follow a volume\'s _data replaced by a link out', async () => {
      assert.equal((await d.request('POST', '/volumes/create', { json: { Name: 'evil-data' } })).status, 201);
      const data = path.join(volumes(), 'evil-data', '_data');
      rmSync(data, { recursive: true });
      symlinkSync(path.join(outside, '_data'), data);
      const run = await d.docker(['run', '--rm', '-v', 'evil-data:/d', 'busybox', 'sh', '-c', 'rm -rf /d/*; echo pwned > /d/pwned']);
      assert.notEqual(run.code, 0);
      assert.match(run.stderr, /error while mounting volume '[^']*': .*evil-data/);
      const copy = await d.request('POST', '/containers/create', { json: { Image: 'busybox', HostConfig: { Binds: ['evil-data:/etc'] } } });
      assert.ok(copy.status >= 400, `${copy.status} ${copy.body}`);
      assert.deepEqual(snapshot(outside), expected);
      // removing the volume removes the link, not what it points to
      const rm = await d.request('DELETE', '/volumes/evil-data');
      assert.ok(rm.status === 204 || rm.status >= 400, rm.body);
      assert.deepEqual(snapshot(outside), expected);
    });

    it('keeps docker cp inside the container when a volume holds a link out', async () => {
      assert.equal((await d.request('POST', '/volumes/create', { json: { Name: 'inner' } })).status, 201);
      const data = path.join(volumes(), 'inner', '_data');
      symlinkSync(outside, path.join(data, 'abs'));
      symlinkSync(path.relative(data, outside), path.join(data, 'rel'));
      symlinkSync('../../../../../../../../../..' + outside, path.join(data, 'climb'));
      const hostFile = path.join(tempDir('berth-voltest-cp-'), 'pwned');
      writeFileSync(hostFile, 'pwned\n');
      await d.docker(['create', '--name', 'cpe', '-v', 'inner:/d', 'busybox', 'sleep', '300']);
      for (const state of ['stopped', 'running']) {
        if (state === 'running') assert.equal((await d.docker(['start', 'cpe'])).code, 0);
        for (const link of ['abs', 'rel', 'climb']) {
          await d.docker(['cp', hostFile, `cpe:/d/${link}/pwned`]);
          await d.docker(['cp', hostFile, `cpe:/d/${link}/_data/`]);
          const out = await d.docker(['cp', `cpe:/d/${link}/keep`, '-']);
          assert.doesNotMatch(out.stdout, /secret/, `${state} ${link}`);
        }
        assert.deepEqual(snapshot(outside), expected, state);
      }
    });
  });
});
