// Secrets and configs on a one-node swarm, through the docker CLI and the API, with the answers
// dockerd 20.10 gives (checked on the reference engine): create, list with its filters, inspect
// (a secret's data never shown, a config's always), a labels-only update at the version read,
// removal, events; the limits and refusals in swarmkit's words; and a secret's data nowhere in
// the store's files as it was given.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSwarmNodes, type SwarmNode, type SwarmNodes } from '../../helpers/swarm-nodes.js';

interface ObjectJson {
  ID: string;
  Version: { Index: number };
  Spec: { Name: string; Labels: Record<string, string>; Data?: string };
}

const b64 = (text: string) => Buffer.from(text).toString('base64');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe('secrets and configs', () => {
  let swarm: SwarmNodes;
  let n1: SwarmNode;
  const call = async <T>(method: string, urlPath: string, body?: unknown) => {
    const res = await n1.request(method, urlPath, body === undefined ? {} : { json: body });
    return { status: res.status, body: (res.body === '' ? undefined : res.json()) as T };
  };
  const message = async (method: string, urlPath: string, body?: unknown) => {
    const res = await call<{ message: string }>(method, urlPath, body);
    return [res.status, res.body?.message];
  };

  before(async () => {
    swarm = await startSwarmNodes(1);
    n1 = swarm.nodes[0]!;
    const init = await n1.docker(['swarm', 'init', '--advertise-addr', n1.addr]);
    assert.equal(init.code, 0, init.stderr);
  });
  after(async () => {
    await swarm?.close();
  });

  it('creates a secret from the CLI, never shows its data, and keeps it encrypted at rest', async () => {
    const created = await n1.docker(['secret', 'create', '--label', 'env=test', 'db-password', '-'], { input: 'correct horse battery staple' });
    assert.equal(created.code, 0, created.stderr);
    const id = created.stdout.trim();
    assert.match(id, /^[0-9a-z]{25}$/);
    const inspected = await call<ObjectJson>('GET', '/secrets/db-password');
    assert.equal(inspected.status, 200);
    assert.equal(inspected.body.ID, id);
    assert.deepEqual(inspected.body.Spec, { Name: 'db-password', Labels: { env: 'test' } });
    const ls = await n1.docker(['secret', 'ls', '--format', '{{.Name}}']);
    assert.equal(ls.stdout.trim(), 'db-password');
    for (const file of filesUnder(path.join(n1.dataRoot, 'swarm'))) {
      const text = readFileSync(file, 'latin1');
      assert.ok(!text.includes('correct horse') && !text.includes(b64('correct horse battery staple')), `${file} holds the secret`);
    }
  });

  it("creates a config, shows its data, and refuses what swarmkit refuses in its words", async () => {
    const created = await call<{ ID: string }>('POST', '/configs/create', { Name: 'app.conf', Labels: { a: 'b' }, Data: b64('port=80\n') });
    assert.equal(created.status, 201);
    const config = await call<ObjectJson>('GET', `/configs/${created.body.ID}`);
    assert.deepEqual(config.body.Spec, { Name: 'app.conf', Labels: { a: 'b' }, Data: b64('port=80\n') });
    assert.equal((await n1.docker(['config', 'inspect', '--pretty', 'app.conf'])).stdout.includes('port=80'), true);

    assert.deepEqual(await message('POST', '/secrets/create', { Name: 'db-password', Data: b64('x') }), [409, 'rpc error: code = AlreadyExists desc = secret db-password already exists']);
    assert.deepEqual(await message('POST', '/secrets/create', { Name: '', Data: b64('x') }), [400, 'rpc error: code = InvalidArgument desc = name must be provided']);
    assert.deepEqual(await message('POST', '/secrets/create', { Name: 'bad name!', Data: b64('x') }), [400, 'rpc error: code = InvalidArgument desc = invalid name, only 64 [a-zA-Z0-9-_.] characters allowed, and the start and end character must be [a-zA-Z0-9]']);
    assert.deepEqual(await message('POST', '/secrets/create', { Name: 'empty', Data: '' }), [400, 'rpc error: code = InvalidArgument desc = secret data must be larger than 0 and less than 512000 bytes']);
    assert.deepEqual(await message('POST', '/secrets/create', { Name: 'big', Data: Buffer.alloc(512000).toString('base64') }), [400, 'rpc error: code = InvalidArgument desc = secret data must be larger than 0 and less than 512000 bytes']);
    assert.equal((await call('POST', '/secrets/create', { Name: 'just-fits', Data: Buffer.alloc(511999).toString('base64') })).status, 201);
    assert.deepEqual(await message('POST', '/configs/create', { Name: 'big', Data: Buffer.alloc(1024000).toString('base64') }), [400, 'rpc error: code = InvalidArgument desc = config data must be larger than 0 and less than 1024000 bytes']);
    assert.deepEqual(await message('POST', '/secrets/create', { Name: 'b64', Data: '!!!' }), [400, 'illegal base64 data at input byte 0']);
    assert.deepEqual(await message('GET', '/secrets/nope'), [404, 'secret nope not found']);
  });

  it('updates labels only, at the version read', async () => {
    const { body: s } = await call<ObjectJson>('GET', '/secrets/db-password');
    assert.equal((await call('POST', `/secrets/db-password/update?version=${s.Version.Index}`, { Name: 'db-password', Labels: { env: 'prod' } })).status, 200);
    assert.deepEqual((await call<ObjectJson>('GET', '/secrets/db-password')).body.Spec.Labels, { env: 'prod' });
    assert.deepEqual(await message('POST', `/secrets/db-password/update?version=${s.Version.Index}`, { Name: 'db-password', Labels: {} }), [500, 'rpc error: code = Unknown desc = update out of sequence']);
    const now = (await call<ObjectJson>('GET', '/secrets/db-password')).body.Version.Index;
    assert.deepEqual(await message('POST', `/secrets/db-password/update?version=${now}`, { Name: 'renamed', Labels: {} }), [400, 'rpc error: code = InvalidArgument desc = only updates to Labels are allowed']);
    assert.deepEqual(await message('POST', `/secrets/db-password/update?version=${now}`, { Name: 'db-password', Data: b64('other'), Labels: {} }), [400, 'rpc error: code = InvalidArgument desc = only updates to Labels are allowed']);
    assert.deepEqual(await message('POST', '/secrets/db-password/update', { Name: 'db-password' }), [400, 'invalid secret version']);
    const { body: c } = await call<ObjectJson>('GET', '/configs/app.conf');
    assert.deepEqual(await message('POST', `/configs/app.conf/update?version=${c.Version.Index}`, { ...c.Spec, Data: b64('port=81\n') }), [400, 'rpc error: code = InvalidArgument desc = only updates to Labels are allowed']);
    assert.equal((await call('POST', `/configs/app.conf/update?version=${c.Version.Index}`, { ...c.Spec, Labels: { a: 'b2' } })).status, 200);
    // the data may be left out, as swarmkit allows
    const again = (await call<ObjectJson>('GET', '/configs/app.conf')).body.Version.Index;
    assert.equal((await call('POST', `/configs/app.conf/update?version=${again}`, { Name: 'app.conf', Labels: { a: 'c' } })).status, 200);
    assert.equal((await call<ObjectJson>('GET', '/configs/app.conf')).body.Spec.Data, b64('port=80\n'));
  });

  it("lists with dockerd's filters, removes, and publishes the events", async () => {
    const since = Math.floor(Date.now() / 1000) - 60;
    const names = async (filters: Record<string, string[]>) => (await call<ObjectJson[]>('GET', `/secrets?filters=${encodeURIComponent(JSON.stringify(filters))}`)).body.map((s) => s.Spec.Name).sort();
    assert.deepEqual(await names({ name: ['db'] }), ['db-password']);
    assert.deepEqual(await names({ names: ['just-fits'] }), ['just-fits']);
    assert.deepEqual(await names({ label: ['env=prod'] }), ['db-password']);
    assert.deepEqual(await message('GET', `/secrets?filters=${encodeURIComponent(JSON.stringify({ bogus: ['x'] }))}`), [400, "Invalid filter 'bogus'"]);
    const rm = await n1.docker(['secret', 'rm', 'db-password']);
    assert.equal(rm.code, 0, rm.stderr);
    assert.equal((await call('DELETE', '/configs/app.conf')).status, 204);
    assert.deepEqual(await message('DELETE', '/configs/app.conf'), [404, 'config app.conf not found']);
    // the name is free again
    assert.equal((await call('POST', '/secrets/create', { Name: 'db-password', Data: b64('new') })).status, 201);
    const events = (await n1.request('GET', `/events?since=${since}&until=${Math.ceil(Date.now() / 1000) + 1}&filters=${encodeURIComponent(JSON.stringify({ type: ['secret', 'config'] }))}`)).body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { Type: string; Action: string; scope: string; Actor: { Attributes: { name: string } } })
      .filter((e) => ['db-password', 'app.conf'].includes(e.Actor.Attributes.name))
      .map((e) => `${e.Type} ${e.Action} ${e.Actor.Attributes.name} ${e.scope}`);
    assert.deepEqual(events, [
      'secret create db-password swarm',
      'config create app.conf swarm',
      'secret update db-password swarm',
      'config update app.conf swarm',
      'config update app.conf swarm',
      'secret remove db-password swarm',
      'config remove app.conf swarm',
      'secret create db-password swarm',
    ]);
  });
});
