// Health checks run inside the container: one goes healthy, one unhealthy, with their events, the
// failing streak and the log of the last results; NONE turns an image's check off.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Berthd } from '../../helpers/berthd.js';
import { inspectContainer, startWithBusybox, teardown, type HealthJson } from '../../helpers/containers.js';

describe('health checks', () => {
  let d: Berthd;
  before(async () => {
    d = await startWithBusybox();
  });
  after(async () => {
    await teardown(d);
  });

  const health = async (ref: string) => (await inspectContainer(d, ref)).State.Health;

  async function untilStatus(ref: string, status: string): Promise<HealthJson> {
    const deadline = Date.now() + 20000;
    for (;;) {
      const h = await health(ref);
      if (h?.Status === status) return h;
      if (Date.now() > deadline) throw new Error(`${ref} never became ${status}: ${JSON.stringify(h)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  test('CMD-SHELL goes starting → healthy once the check passes', async () => {
    const since = Math.floor(Date.now() / 1000) - 1;
    const id = (
      await d.docker(['run', '-d', '--health-cmd', 'test -f /tmp/ok', '--health-interval', '200ms', '--health-retries', '50', 'busybox', 'sh', '-c', 'sleep 1; touch /tmp/ok; sleep 300'])
    ).stdout.trim();
    assert.equal((await health(id))?.Status, 'starting');
    const h = await untilStatus(id, 'healthy');
    assert.equal(h.FailingStreak, 0);
    assert.ok(h.Log.length >= 1 && h.Log.length <= 5);
    assert.equal(h.Log.at(-1)?.ExitCode, 0);
    assert.match((await d.docker(['ps', '--filter', `id=${id}`, '--format', '{{.Status}}'])).stdout, /\(healthy\)/);
    assert.equal((await d.docker(['ps', '-q', '--filter', 'health=healthy'])).stdout.trim(), id.slice(0, 12));
    const events = await d.docker(['events', '--since', String(since), '--until', String(Math.ceil(Date.now() / 1000)), '--filter', `container=${id}`, '--format', '{{.Action}}']);
    assert.ok(events.stdout.split('\n').includes('health_status: healthy'), events.stdout);
    await d.docker(['rm', '-f', id]);
  });

  test('CMD that fails goes unhealthy after Retries, with its output logged', async () => {
    const body = {
      Image: 'busybox',
      Cmd: ['sleep', '300'],
      Healthcheck: { Test: ['CMD', 'sh', '-c', 'echo failing; exit 1'], Interval: 100_000_000, Retries: 2 },
    };
    const created = await d.request('POST', '/containers/create', { json: body });
    assert.equal(created.status, 201, created.body);
    const id = (JSON.parse(created.body) as { Id: string }).Id;
    await d.request('POST', `/containers/${id}/start`);
    const h = await untilStatus(id, 'unhealthy');
    assert.ok(h.FailingStreak >= 2);
    assert.equal(h.Log.at(-1)?.ExitCode, 1);
    assert.equal(h.Log.at(-1)?.Output, 'failing\n');
    await d.docker(['rm', '-f', id]);
  });

  test('NONE disables the check; API 1.40+ refuses an interval under 1 ms, 1.25 does not', async () => {
    const none = await d.request('POST', '/containers/create', { json: { Image: 'busybox', Cmd: ['true'], Healthcheck: { Test: ['NONE'] } } });
    assert.equal(none.status, 201);
    const id = (JSON.parse(none.body) as { Id: string }).Id;
    await d.request('POST', `/containers/${id}/start`);
    assert.equal(await health(id), undefined);
    const tiny = { Image: 'busybox', Cmd: ['true'], Healthcheck: { Test: ['CMD', 'true'], Interval: 1000 } };
    const refused = await d.request('POST', '/v1.41/containers/create', { json: tiny });
    assert.equal(refused.status, 400);
    assert.match(JSON.parse(refused.body).message, /Interval in Healthcheck cannot be less than 1ms/);
    assert.equal((await d.request('POST', '/v1.25/containers/create', { json: tiny })).status, 201);
  });
});
