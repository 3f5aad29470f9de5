// What containers use, as the areas that own it must see it: an image under a container can't be
// deleted or pruned away (dockerd's conflicts, running and stopped), `rm -v` takes the container's
// anonymous volumes unless another container mounts them, and `rm --link` answers as dockerd does
// where there are no links.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Berthd } from '../../helpers/berthd.js';
import { inspectContainer, startWithBusybox, teardown } from '../../helpers/containers.js';

describe('what containers use', () => {
  let d: Berthd;
  before(async () => {
    d = await startWithBusybox();
  });
  after(async () => {
    await teardown(d);
  });

  const create = async (name: string, body: Record<string, unknown>) => {
    const r = await d.request('POST', `/containers/create?name=${name}`, { json: { Image: 'busybox', Cmd: ['sleep', '300'], ...body } });
    assert.equal(r.status, 201, r.body);
    return (r.json() as { Id: string }).Id;
  };
  const message = (r: { json(): unknown }) => (r.json() as { message: string }).message;

  test("an image containers use is kept, with dockerd's conflicts for running and stopped containers", async () => {
    assert.equal((await d.docker(['tag', 'busybox', 'use/me:1'])).code, 0);
    const imageId = ((await d.request('GET', '/images/use/me:1/json')).json() as { Id: string }).Id;
    const short = imageId.slice(7, 19);
    const running = await create('user-running', { Image: 'use/me:1' });
    assert.equal((await d.request('POST', `/containers/${running}/start`)).status, 204);

    // another name for the image may go; the image may not, forced or not, while a container runs it
    assert.equal((await d.request('DELETE', '/images/use/me:1')).status, 200);
    for (const force of ['', '?force=1']) {
      const r = await d.request('DELETE', `/images/${short}${force}`);
      assert.equal(r.status, 409);
      assert.equal(message(r), `conflict: unable to delete ${short} (cannot be forced) - image is being used by running container ${running.slice(0, 12)}`);
    }
    const pruned = (await d.request('POST', `/images/prune?filters=${encodeURIComponent('{"dangling":["false"]}')}`)).json() as { ImagesDeleted: unknown };
    assert.equal(pruned.ImagesDeleted, null);

    assert.equal((await d.request('DELETE', `/containers/${running}?force=1`)).status, 204);
    const stopped = await create('user-stopped', {});
    const byId = await d.request('DELETE', `/images/${short}`);
    assert.equal(byId.status, 409);
    assert.equal(message(byId), `conflict: unable to delete ${short} (must be forced) - image is being used by stopped container ${stopped.slice(0, 12)}`);
    const byName = await d.request('DELETE', '/images/busybox');
    assert.equal(byName.status, 409);
    assert.equal(message(byName), `conflict: unable to remove repository reference "busybox" (must force) - container ${stopped.slice(0, 12)} is using its referenced image ${short}`);
    assert.equal((await d.request('DELETE', `/containers/${stopped}`)).status, 204);
    assert.equal((await d.request('GET', '/images/busybox/json')).status, 200);
  });

  test('rm -v removes the anonymous volumes no other container mounts, and keeps named ones', async () => {
    const owner = await create('vol-owner', { HostConfig: { Binds: ['/anon', 'named-vol:/named'] } });
    const sharer = await create('vol-sharer', { HostConfig: { VolumesFrom: ['vol-owner'] } });
    const mounts = (await inspectContainer(d, owner)).Mounts as Array<{ Name: string; Destination: string; Source: string }>;
    const anon = mounts.find((m) => m.Destination === '/anon');
    const named = mounts.find((m) => m.Destination === '/named');
    assert.ok(anon && named);
    const volumeDir = (name: string) => path.join(d.dataRoot, 'volumes', name);
    assert.ok(existsSync(anon.Source));

    // the sharer still mounts it: the owner goes, the volume stays
    assert.equal((await d.request('DELETE', `/containers/${owner}?v=1`)).status, 204);
    assert.ok(existsSync(volumeDir(anon.Name)));
    assert.equal((await d.request('DELETE', `/containers/${sharer}?v=1`)).status, 204);
    assert.ok(!existsSync(volumeDir(anon.Name)), 'the anonymous volume is gone with its last container');
    assert.ok(existsSync(volumeDir(named.Name)), 'a named volume stays');

    // AutoRemove takes them too, as dockerd's does
    const run = await d.docker(['run', '--rm', '-v', '/scratch', 'busybox', 'sh', '-c', 'cat /proc/self/mountinfo | grep -c " /scratch "']);
    assert.equal(run.code, 0, run.stderr);
    const left = (await d.request('GET', '/containers/json?all=1')).json() as unknown[];
    assert.deepEqual(left, []);
    assert.deepEqual(readdirSync(path.join(d.dataRoot, 'volumes')), ['named-vol']);
  });

  test('rm --link: a container has no link of its own name to remove (500 as dockerd), and berth has no links (404)', async () => {
    const id = await create('linked', {});
    const own = await d.request('DELETE', '/containers/linked?link=1');
    assert.equal(own.status, 500);
    assert.equal(message(own), 'Conflict, cannot remove the default link name of the container');
    const link = await d.request('DELETE', '/containers/linked/alias?link=1');
    assert.equal(link.status, 404);
    assert.equal(message(link), 'No such container: linked/alias');
    assert.equal((await inspectContainer(d, id)).Id, id);
    assert.equal((await d.request('DELETE', '/containers/linked')).status, 204);
  });
});
