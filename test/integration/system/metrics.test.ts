// GET /metrics on metrics-addr, scraped as Prometheus would and read with a Prometheus text parser:
// dockerd's engine_daemon metrics (engine info, container states, action latencies, events,
// health checks) and berth's per-endpoint request counts and durations.
import assert from 'node:assert/strict';
import os from 'node:os';
import { after, before, describe, it } from 'node:test';
import { Berthd } from '../../helpers/berthd.js';
import { loadBusybox } from '../../helpers/busybox-image.js';
import { execIn } from '../../helpers/netns.js';
import { parsePrometheusText, type ParsedSample } from '../../helpers/prometheus-text.js';
import { until } from '../../helpers/until.js';

const METRICS_ADDR = '127.0.0.1:9323';

describe('GET /metrics', () => {
  let d: Berthd;
  before(async () => {
    d = await Berthd.start({ config: { 'metrics-addr': METRICS_ADDR }, netns: 'own' });
    await loadBusybox(d);
  });
  after(() => d?.stop());

  /** A scrape from inside berthd's namespace, where the address is (node's fetch, run there). */
  function scrape(path = '/metrics'): { status: number; contentType: string; body: string } {
    const script = `const r = await fetch(${JSON.stringify(`http://${METRICS_ADDR}${path}`)}); process.stdout.write(JSON.stringify({ status: r.status, contentType: r.headers.get('content-type'), body: await r.text() }));`;
    return JSON.parse(execIn(d.netns!, process.execPath, ['--input-type=module', '-e', script])) as { status: number; contentType: string; body: string };
  }

  /** Every sample of a scrape, by its name as exposed (a histogram's _bucket, _sum and _count). */
  function samples(): ParsedSample[] {
    return parsePrometheusText(scrape().body).flatMap((f) => f.samples);
  }

  function value(name: string, labels: Record<string, string> = {}): number {
    const found = samples().find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
    assert.ok(found, `${name} has no series ${JSON.stringify(labels)}`);
    return found.value;
  }

  it('serves the text format with dockerd\'s names and types, and nothing but /metrics', async () => {
    const { status, contentType } = scrape();
    assert.equal(status, 200);
    assert.equal(contentType, 'text/plain; version=0.0.4; charset=utf-8');
    const families = parsePrometheusText(scrape().body);
    const types = Object.fromEntries(families.map((f) => [f.name, f.type]));
    assert.deepEqual(
      {
        engine_daemon_engine_info: types.engine_daemon_engine_info,
        engine_daemon_engine_cpus_cpus: types.engine_daemon_engine_cpus_cpus,
        engine_daemon_engine_memory_bytes: types.engine_daemon_engine_memory_bytes,
        engine_daemon_container_states_containers: types.engine_daemon_container_states_containers,
        engine_daemon_container_actions_seconds: types.engine_daemon_container_actions_seconds,
        engine_daemon_events: types.engine_daemon_events,
        engine_daemon_events_subscribers_total: types.engine_daemon_events_subscribers_total,
        engine_daemon_health_checks: types.engine_daemon_health_checks,
        engine_daemon_health_checks_failed: types.engine_daemon_health_checks_failed,
        engine_daemon_api_request_duration_seconds: types.engine_daemon_api_request_duration_seconds,
      },
      {
        engine_daemon_engine_info: 'gauge',
        engine_daemon_engine_cpus_cpus: 'gauge',
        engine_daemon_engine_memory_bytes: 'gauge',
        engine_daemon_container_states_containers: 'gauge',
        engine_daemon_container_actions_seconds: 'histogram',
        engine_daemon_events: 'counter',
        engine_daemon_events_subscribers_total: 'gauge',
        engine_daemon_health_checks: 'counter',
        engine_daemon_health_checks_failed: 'counter',
        engine_daemon_api_request_duration_seconds: 'histogram',
      },
    );
    const all = families.flatMap((f) => f.samples);
    const info = all.find((s) => s.name === 'engine_daemon_engine_info')!;
    assert.equal(info.value, 1);
    const id = ((await d.request('GET', '/info')).json() as { ID: string }).ID;
    assert.equal(info.labels.daemon_id, id);
    assert.equal(info.labels.graphdriver, 'overlay2');
    assert.equal(info.labels.os_type, 'linux');
    assert.equal(value('engine_daemon_engine_cpus_cpus'), os.availableParallelism());
    assert.equal(value('engine_daemon_engine_memory_bytes'), os.totalmem());
    // the histogram's series exist before the first action, as dockerd's, with its buckets
    for (const action of ['changes', 'commit', 'create', 'delete', 'start']) {
      const les = all.filter((s) => s.name === 'engine_daemon_container_actions_seconds_bucket' && s.labels.action === action).map((s) => s.labels.le);
      assert.deepEqual(les, ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf'], action);
    }
    assert.equal(scrape('/other').status, 404);
  });

  it('counts container states, times create, start and delete, and counts events and health checks', async () => {
    const before = { create: value('engine_daemon_container_actions_seconds_count', { action: 'create' }), events: value('engine_daemon_events_total') };
    const run = await d.docker(['run', '-d', '--name', 'm1', '--health-cmd', 'true', '--health-interval', '1s', 'busybox', 'sleep', '300']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(value('engine_daemon_container_states_containers', { state: 'running' }), 1);
    assert.equal(value('engine_daemon_container_actions_seconds_count', { action: 'create' }), before.create + 1);
    assert.equal(value('engine_daemon_container_actions_seconds_count', { action: 'start' }), 1);
    assert.ok(value('engine_daemon_events_total') >= before.events + 2, 'create and start are events');
    await until('a health check to be counted', async () => value('engine_daemon_health_checks_total'), (n) => n >= 1);
    assert.equal(value('engine_daemon_health_checks_failed_total'), 0);

    assert.equal((await d.docker(['pause', 'm1'])).code, 0);
    assert.equal(value('engine_daemon_container_states_containers', { state: 'paused' }), 1);
    assert.equal((await d.docker(['rm', '-f', 'm1'])).code, 0);
    assert.equal(value('engine_daemon_container_states_containers', { state: 'running' }), 0);
    assert.equal(value('engine_daemon_container_states_containers', { state: 'paused' }), 0);
    assert.equal(value('engine_daemon_container_actions_seconds_count', { action: 'delete' }), 1);
    assert.ok(value('engine_daemon_container_actions_seconds_sum', { action: 'start' }) > 0);
    assert.equal(value('engine_daemon_container_actions_seconds_bucket', { action: 'start', le: '+Inf' }), 1);
  });

  it('berth_event_loop_delay_seconds: how late the event loop ran, in buckets down to a millisecond', () => {
    scrape();
    const all = samples();
    const les = all.filter((s) => s.name === 'berth_event_loop_delay_seconds_bucket').map((s) => s.labels.le);
    assert.deepEqual(les, ['0.001', '0.0025', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '+Inf']);
    // a timer due every 10 ms has fired since the daemon started serving
    assert.ok(value('berth_event_loop_delay_seconds_count') > 0);
    assert.equal(parsePrometheusText(scrape().body).find((f) => f.name === 'berth_event_loop_delay_seconds')?.type, 'histogram');
  });

  it('counts and times each API request by operation, method and status', async () => {
    const pings = () => value('engine_daemon_api_requests_total', { operation: 'SystemPing', method: 'GET', code: '200' });
    await d.request('GET', '/_ping');
    const n = pings();
    await d.request('GET', '/_ping');
    await d.request('GET', '/v1.41/_ping');
    assert.equal(pings(), n + 2);
    await d.request('GET', '/containers/nosuch/json');
    assert.equal(value('engine_daemon_api_requests_total', { operation: 'ContainerInspect', code: '404' }), 1);
    await d.request('GET', '/no/such/path');
    assert.ok(value('engine_daemon_api_requests_total', { operation: 'none', method: 'other', code: '404' }) >= 1);
    assert.ok(value('engine_daemon_api_request_duration_seconds_count', { operation: 'SystemPing', method: 'GET' }) >= n + 2);
  });
});

it('metrics-addr is checked at start', async () => {
  const d = Berthd.spawn({ args: ['--metrics-addr', 'nowhere'], netns: 'own' });
  assert.equal((await d.exited).code, 1);
  assert.match(d.log, /invalid metrics-addr "nowhere": expected host:port/);
});
