import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { pino } from 'pino';
import { EventBus } from '../events/event-bus.js';
import { FilterArgs } from '../lib/filters.js';
import { createVolumes } from './create-volumes.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'berth-volumes-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** The area over a data root of the test's, with the containers' usage given. */
async function area(dataRoot: string, users: (name: string) => string[] = () => []) {
  const volumes = await createVolumes({ dataRoot, events: new EventBus(), log: pino({ level: 'silent' }), users, pluginsDir: path.join(dataRoot, 'plugins') });
  return { volumes };
}

describe('the volume service', () => {
  it('answers the same name with the same volume, options sent again ignored, as dockerd 20.10', async () => {
    const dataRoot = path.join(root, 'same');
    const { volumes } = await area(dataRoot);
    const first = await volumes.api.create({ Name: 'same', Labels: { a: 'b' } });
    const again = await volumes.api.create({ Name: 'same', Labels: { c: 'd' }, DriverOpts: { type: 'tmpfs', device: 'tmpfs' } });
    assert.deepEqual(again.record, first.record);
    assert.deepEqual(first.record.labels, { a: 'b' });
    assert.equal(first.record.options, null);
    assert.equal(first.mountpoint, path.join(dataRoot, 'volumes', 'same', '_data'));
  });

  it('refuses another driver for a known name, and an unknown driver before the name', async () => {
    const { volumes } = await area(path.join(root, 'drivers'));
    await volumes.api.create({ Name: 'known' });
    await assert.rejects(volumes.api.create({ Name: 'known', Driver: 'nosuch' }), { message: 'create known: error looking up volume plugin nosuch: plugin "nosuch" not found' });
  });

  it('takes in a bare directory as a local volume, and empties a volume whose copy-up was cut short', async () => {
    const dataRoot = path.join(root, 'load');
    const first = await area(dataRoot);
    await first.volumes.api.create({ Name: 'half' });
    const data = path.join(dataRoot, 'volumes', 'half', '_data');
    // a copy cut short: the mark is there, and part of the files
    writeFileSync(path.join(dataRoot, 'volume-records', 'half.copy-up'), '');
    writeFileSync(path.join(data, 'part'), 'x');
    mkdirSync(path.join(dataRoot, 'volumes', 'bare', '_data'), { recursive: true });
    writeFileSync(path.join(dataRoot, 'volumes', 'bare', '_data', 'kept'), 'y');

    const second = await area(dataRoot);
    const { volumes } = await second.volumes.api.list(FilterArgs.empty());
    assert.deepEqual(volumes.map((v) => v.record.name).sort(), ['bare', 'half']);
    assert.deepEqual(readdirSync(data), []);
    assert.equal(existsSync(path.join(dataRoot, 'volume-records', 'half.copy-up')), false);
    assert.ok(existsSync(path.join(dataRoot, 'volumes', 'bare', '_data', 'kept')));
  });

  it('copies up into an empty volume only, with the mark gone after', async () => {
    const dataRoot = path.join(root, 'copy');
    const { volumes } = await area(dataRoot);
    const v = await volumes.containers.ensure('cv', {});
    let fills = 0;
    const fill = async (dir: string) => {
      fills++;
      writeFileSync(path.join(dir, 'f'), 'content');
    };
    await volumes.containers.copyUpInto(v.name, fill);
    await volumes.containers.copyUpInto(v.name, fill);
    assert.equal(fills, 1);
    assert.deepEqual(readdirSync(path.join(dataRoot, 'volume-records')).sort(), ['cv.json']);
  });

  it('refuses to remove a referenced volume, and prunes only unreferenced local volumes without options', async () => {
    const dataRoot = path.join(root, 'prune');
    const inUse = new Set(['busy']);
    const { volumes } = await area(dataRoot, (name) => (inUse.has(name) ? ['c1'] : []));
    for (const Name of ['busy', 'idle', 'named']) await volumes.api.create({ Name });
    await volumes.api.create({ Name: 'opts', DriverOpts: { type: 'tmpfs', device: 'tmpfs' } });
    const anonymous = await volumes.containers.ensure(undefined, {});
    writeFileSync(path.join(dataRoot, 'volumes', 'idle', '_data', 'f'), '12345');
    await assert.rejects(volumes.api.remove('busy', true), { message: 'remove busy: volume is in use - [c1]' });
    const pruned = await volumes.api.prune(FilterArgs.empty());
    assert.deepEqual(pruned.names.sort(), [anonymous.name, 'idle', 'named'].sort());
    assert.equal(pruned.reclaimedBytes, 5);
    assert.deepEqual((await volumes.api.list(FilterArgs.empty())).volumes.map((v) => v.record.name).sort(), ['busy', 'opts']);
  });

  it('refuses a volume directory that is a symlink, and removes nothing outside the root', async () => {
    const dataRoot = path.join(root, 'symlink');
    const { volumes } = await area(dataRoot);
    await volumes.api.create({ Name: 'evil' });
    const outside = path.join(root, 'outside');
    mkdirSync(outside, { recursive: true });
    writeFileSync(path.join(outside, 'precious'), 'keep');
    const data = path.join(dataRoot, 'volumes', 'evil', '_data');
    rmSync(data, { recursive: true });
    symlinkSync(outside, data);
    await assert.rejects(volumes.containers.mountFor('c1', [{ name: 'evil', destination: '/d', source: data, rw: true, propagation: '' }]), /is not a directory inside the volumes root/);
    await volumes.api.remove('evil', false);
    assert.ok(existsSync(path.join(outside, 'precious')));
  });
});
