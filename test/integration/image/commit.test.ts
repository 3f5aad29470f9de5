// POST /commit through the docker CLI and the raw requests the SDKs send: the container's own
// layer on its image's, the config with its changes merged as dockerd merges them, the history,
// an empty change as an empty layer, a running container paused for the copy, and the errors.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempDir, type Berthd } from '../../helpers/berthd.js';
import { startWithBusybox, teardown } from '../../helpers/containers.js';
import { sha256 } from '../../helpers/image-archives.js';
import { untar } from '../../helpers/image-archives.js';

interface ImageJson {
  Id: string;
  Author: string;
  Comment: string;
  Container: string;
  Config: { Env: string[]; Cmd: string[]; WorkingDir: string; ExposedPorts?: Record<string, object>; Volumes: Record<string, object> | null; Labels: Record<string, string> };
  ContainerConfig: { Cmd: string[] };
  RootFS: { Layers: string[] };
}

describe('POST /commit', () => {
  let d: Berthd;
  before(async () => {
    d = await startWithBusybox();
  });
  after(async () => {
    await teardown(d);
  });

  const image = async (ref: string) => (await d.request('GET', `/images/${ref}/json`)).json() as ImageJson;

  test('docker commit: the file written is in the image, the changes in its config, the commit in its history', async () => {
    const run = await d.docker(['run', '--name', 'c1', 'busybox', 'sh', '-c', 'echo hi > /hello']);
    assert.equal(run.code, 0, run.stderr);
    const changes = ['ENV A=1', 'CMD ["sh"]', 'WORKDIR /w', 'EXPOSE 80', 'VOLUME /data'].flatMap((c) => ['-c', c]);
    const commit = await d.docker(['commit', '-m', 'a message', '-a', 'me <me@x>', ...changes, 'c1', 'committed:1']);
    assert.equal(commit.code, 0, commit.stderr);
    const c1 = (await d.request('GET', '/containers/c1/json')).json() as { Id: string };
    const img = await image('committed:1');
    assert.equal(commit.stdout.trim(), img.Id);
    assert.equal(img.Author, 'me <me@x>');
    assert.equal(img.Comment, 'a message');
    assert.equal(img.Container, c1.Id);
    assert.ok(img.Config.Env.includes('A=1'), img.Config.Env.join(' '));
    assert.ok(img.Config.Env.some((e) => e.startsWith('PATH=')), 'the container\'s PATH is merged under the changes');
    assert.deepEqual(img.Config.Cmd, ['sh']);
    assert.equal(img.Config.WorkingDir, '/w');
    assert.deepEqual(img.Config.ExposedPorts, { '80/tcp': {} });
    assert.deepEqual(img.Config.Volumes, { '/data': {} });
    assert.deepEqual(img.ContainerConfig.Cmd, ['sh', '-c', 'echo hi > /hello']);
    const busybox = await image('busybox');
    assert.deepEqual(img.RootFS.Layers.slice(0, -1), busybox.RootFS.Layers);
    assert.equal(img.RootFS.Layers.length, busybox.RootFS.Layers.length + 1);

    const out = await d.docker(['run', '--rm', 'committed:1', 'cat', '/hello']);
    assert.equal(out.stdout, 'hi\n', out.stderr);
    const history = await d.docker(['history', '--no-trunc', '--format', '{{.CreatedBy}}|{{.Comment}}|{{.Size}}', 'committed:1']);
    const [top] = history.stdout.trim().split('\n');
    assert.equal(top, 'sh -c echo hi > /hello|a message|3B');
  });

  test('the ID is the digest of the config as saved, so Docker\'s engine loads it with the same ID', async () => {
    const img = await image('committed:1');
    const file = path.join(tempDir(), 'committed.tar');
    assert.equal((await d.docker(['save', '-o', file, 'committed:1'])).code, 0);
    const files = await untar(readFileSync(file));
    const config = files.get(`${img.Id.slice(7)}.json`);
    assert.ok(config, 'the config is in the archive under its digest');
    assert.equal(sha256(config), img.Id);
    writeFileSync(`${file}.config.json`, config);
  });

  test('a container that changed nothing commits an empty layer, as dockerd', async () => {
    assert.equal((await d.docker(['commit', 'c1', 'plain:1'])).code, 0);
    const plain = await image('plain:1');
    // it ran: the init layer holds what the runtime mounts over, so its own layer stays empty
    assert.equal((await d.docker(['run', '--name', 'unchanged', 'plain:1', 'true'])).code, 0);
    assert.deepEqual(((await d.request('GET', '/containers/unchanged/changes')).json()), null);
    const again = await d.docker(['commit', 'unchanged', 'plain:2']);
    assert.equal(again.code, 0, again.stderr);
    const empty = await image('plain:2');
    assert.notEqual(empty.Id, plain.Id);
    assert.deepEqual(empty.RootFS.Layers, plain.RootFS.Layers);
    const history = await d.docker(['history', '--format', '{{.CreatedBy}}|{{.Size}}', 'plain:2']);
    assert.equal(history.stdout.trim().split('\n')[0], 'true|0B');
  });

  test('a running container is paused while its layer is read, then runs on', async () => {
    const id = (await d.docker(['run', '-d', 'busybox', 'sh', '-c', 'date > /started; sleep 300'])).stdout.trim();
    const since = (Date.now() / 1000).toFixed(3);
    const r = await d.request('POST', `/commit?container=${id}&repo=running&tag=1`, { json: null });
    assert.equal(r.status, 201, r.body);
    const { Id } = r.json() as { Id: string };
    const filters = encodeURIComponent(JSON.stringify({ container: [id] }));
    const events = await d.request('GET', `/events?since=${since}&until=${(Date.now() / 1000 + 0.001).toFixed(3)}&filters=${filters}`);
    const actions = events.body.trim().split('\n').map((l) => JSON.parse(l) as { Action: string; Actor: { Attributes: Record<string, string> } });
    assert.deepEqual(actions.map((e) => e.Action), ['pause', 'unpause', 'commit']);
    assert.deepEqual(actions[2].Actor.Attributes.imageID, Id);
    assert.equal(actions[2].Actor.Attributes.imageRef, 'running:1');
    assert.equal(((await d.request('GET', `/containers/${id}/json`)).json() as { State: { Status: string } }).State.Status, 'running');
    const seen = await d.docker(['run', '--rm', 'running:1', 'cat', '/started']);
    assert.equal(seen.code, 0, seen.stderr);
    // pause=0 leaves it running throughout
    const unpaused = await d.request('POST', `/commit?container=${id}&pause=0`, { json: {} });
    assert.equal(unpaused.status, 201, unpaused.body);
    await d.docker(['rm', '-f', id]);
  });

  test("the SDKs' requests: a config in the body, and dockerd's errors", async () => {
    // docker-py and dockerode send the config (or {}) as JSON, with the query's changes
    const body = { Cmd: ['echo', 'from-body'], Labels: { from: 'body' } };
    const r = await d.request('POST', `/commit?container=c1&repo=sdk%2Fimg&tag=2&changes=${encodeURIComponent('ENV B=2')}`, { json: body });
    assert.equal(r.status, 201, r.body);
    const img = await image('sdk/img:2');
    assert.deepEqual(img.Config.Cmd, ['echo', 'from-body']);
    assert.deepEqual(img.Config.Labels, { from: 'body' });
    assert.ok(img.Config.Env.includes('B=2'));
    assert.ok(img.Config.Env.some((e) => e.startsWith('PATH=')));

    const missing = await d.request('POST', '/commit?container=nosuch');
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.json(), { message: 'No such container: nosuch' });
    const badChange = await d.request('POST', `/commit?container=c1&changes=${encodeURIComponent('BOGUS 1')}`);
    assert.equal(badChange.status, 400);
    assert.deepEqual(badChange.json(), { message: 'bogus is not a valid change command' });
    const badName = await d.request('POST', '/commit?container=c1&repo=Bad');
    assert.equal(badName.status, 400);
    await d.docker(['rm', 'c1', 'unchanged']);
  });
});
