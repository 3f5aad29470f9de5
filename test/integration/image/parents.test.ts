// An image committed on another names it as its parent, as dockerd's image metadata does (a
// build's steps are such a chain): Parent in inspect and list, the parents' IDs in the history,
// untagged parents hidden from the list unless `all`, a parent with children refused deletion,
// and an image deleted taking its untagged, unused parents along unless noprune.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Berthd } from '../../helpers/berthd.js';
import { startWithBusybox, teardown } from '../../helpers/containers.js';

describe('image parents', () => {
  let d: Berthd;
  before(async () => {
    d = await startWithBusybox();
  });
  after(async () => {
    await teardown(d);
  });

  const inspect = async (ref: string) => (await d.request('GET', `/images/${ref}/json`)).json() as { Id: string; Parent: string };
  const exists = async (id: string) => (await d.request('GET', `/images/${id}/json`)).status === 200;

  /** busybox → an untagged image → `tag`: the untagged middle's ID. */
  async function chain(tag: string): Promise<string> {
    assert.equal((await d.docker(['run', '--name', `${tag}-1`, 'busybox', 'sh', '-c', 'echo 1 > /one'])).code, 0);
    const middle = (await d.docker(['commit', `${tag}-1`])).stdout.trim();
    assert.equal((await d.docker(['run', '--name', `${tag}-2`, middle, 'sh', '-c', 'echo 2 > /two'])).code, 0);
    assert.equal((await d.docker(['commit', `${tag}-2`, `${tag}:1`])).code, 0);
    assert.equal((await d.docker(['rm', `${tag}-1`, `${tag}-2`])).code, 0);
    return middle;
  }

  test('a commit names its parent; the history names each step; the list hides the untagged middle unless all', async () => {
    const middle = await chain('chain');
    const busybox = await inspect('busybox');
    assert.equal((await inspect(middle)).Parent, busybox.Id);
    assert.equal((await inspect('chain:1')).Parent, middle);
    const history = await d.docker(['history', '--no-trunc', '--format', '{{.ID}}', 'chain:1']);
    assert.deepEqual(history.stdout.trim().split('\n').slice(0, 3), [(await inspect('chain:1')).Id, middle, busybox.Id]);
    const listed = async (all: boolean) => ((await d.request('GET', `/images/json?all=${all ? 1 : 0}`)).json() as Array<{ Id: string; ParentId: string }>);
    assert.ok(!(await listed(false)).some((i) => i.Id === middle), 'an intermediate image is hidden');
    const shown = (await listed(true)).find((i) => i.Id === middle);
    assert.equal(shown?.ParentId, busybox.Id);
  });

  test('a parent with children is not deleted, even forced; deleting the child takes the untagged parent along', async () => {
    const middle = (await inspect('chain:1')).Parent;
    for (const force of [0, 1]) {
      const res = await d.request('DELETE', `/images/${middle.slice(7)}?force=${force}`);
      assert.equal(res.status, 409);
      assert.deepEqual(res.json(), { message: `conflict: unable to delete ${middle.slice(7, 19)} (cannot be forced) - image has dependent child images` });
    }
    const top = (await inspect('chain:1')).Id;
    const items = (await d.request('DELETE', '/images/chain:1')).json() as Array<{ Untagged?: string; Deleted?: string }>;
    assert.deepEqual(items[0], { Untagged: 'chain:1' });
    const deleted = items.filter((i) => i.Deleted !== undefined).map((i) => i.Deleted);
    assert.equal(deleted[0], top);
    assert.ok(deleted.indexOf(middle) > 0, `the parent goes after its child: ${JSON.stringify(items)}`);
    assert.equal(await exists(middle), false);
    assert.equal(await exists('busybox'), true, 'a tagged parent stays');
  });

  test('noprune keeps the parents', async () => {
    const middle = await chain('kept');
    assert.equal((await d.request('DELETE', '/images/kept:1?noprune=1')).status, 200);
    assert.equal(await exists(middle), true);
    assert.equal((await d.request('DELETE', `/images/${middle}`)).status, 200, 'no child left: it goes');
  });

  test('untagging the last name of an image with children keeps it, untagged', async () => {
    assert.equal((await d.docker(['run', '--name', 'named', 'busybox', 'true'])).code, 0);
    assert.equal((await d.docker(['commit', 'named', 'named:1'])).code, 0);
    assert.equal((await d.docker(['run', '--name', 'kid', 'named:1', 'true'])).code, 0);
    assert.equal((await d.docker(['commit', 'kid', 'kid:1'])).code, 0);
    assert.equal((await d.docker(['rm', 'named', 'kid'])).code, 0);
    const named = (await inspect('named:1')).Id;
    assert.deepEqual((await d.request('DELETE', '/images/named:1')).json(), [{ Untagged: 'named:1' }]);
    assert.equal(await exists(named), true);
  });

  test('an image prune deletes dangling images with their untagged parents, never a parent with a child', async () => {
    const middle = await chain('pruned');
    // pruned:1 untagged by hand: now it is a dangling head, its parent an intermediate image
    const top = (await inspect('pruned:1')).Id;
    assert.equal((await d.request('DELETE', '/images/pruned:1?noprune=1')).status, 200);
    assert.equal(await exists(top), false);
    assert.equal((await d.docker(['run', '--name', 'p3', middle, 'sh', '-c', 'echo 3 > /three'])).code, 0);
    const dangling = (await d.docker(['commit', 'p3'])).stdout.trim();
    assert.equal((await d.docker(['rm', 'p3'])).code, 0);
    const res = (await d.request('POST', '/images/prune')).json() as { ImagesDeleted: Array<{ Deleted?: string }> | null };
    const deleted = (res.ImagesDeleted ?? []).map((i) => i.Deleted);
    assert.ok(deleted.includes(dangling) && deleted.includes(middle), JSON.stringify(res));
    assert.equal(await exists('busybox'), true);
  });
});
