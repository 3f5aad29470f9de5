// GET /events and `docker system events` against a real berthd. The only event source so far is
// SIGHUP, which publishes `daemon reload`; each reload here carries a label naming it (seq=…).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import http, { type IncomingHttpHeaders } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Berthd } from '../../helpers/berthd.js';

interface WireEvent {
  status?: string;
  id?: string;
  from?: string;
  Type: string;
  Action: string;
  Actor: { ID: string; Attributes: Record<string, string> };
  scope: string;
  time: number;
  timeNano: number;
}

const NS = 1_000_000_000n;

/** A nanosecond time as the `since`/`until` parameters take it: "seconds.nnnnnnnnn". */
const ts = (nanos: bigint) => `${nanos / NS}.${(nanos % NS).toString().padStart(9, '0')}`;
const testNow = () => BigInt(Date.now()) * 1_000_000n;
const lines = (body: string) => body.split('\n').filter((l) => l !== '');
const q = (value: unknown) => encodeURIComponent(JSON.stringify(value));

/** The timeNano of one raw event line, read from its digits (a double would round them). */
function timeNanoOf(line: string): bigint {
  const m = /"timeNano":(\d+)\}$/.exec(line);
  assert.ok(m, `no integer timeNano at the end of ${line}`);
  return BigInt(m[1]);
}

async function waitFor(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.fail(`timed out waiting for ${what}`);
}

async function info(d: Berthd): Promise<{ ID: string; Name: string; Labels: string[]; NEventsListener: number }> {
  const r = await d.request('GET', '/info');
  assert.equal(r.status, 200, r.body);
  return r.json() as { ID: string; Name: string; Labels: string[]; NEventsListener: number };
}

/** Publishes a `daemon reload` event labelled seq=<tag>, and waits until the daemon has applied it. */
async function reload(d: Berthd, tag: string): Promise<void> {
  writeFileSync(d.configFile, JSON.stringify({ debug: true, labels: [`seq=${tag}`] }));
  process.kill(d.proc.pid as number, 'SIGHUP');
  await waitFor(async () => (await info(d)).Labels.join() === `seq=${tag}`, `reload seq=${tag}`);
}

/** An open GET /events: its head, the lines so far, and whether the server has ended it. */
interface OpenStream {
  status: number;
  headers: IncomingHttpHeaders;
  body: () => string;
  lines: () => string[];
  ended: Promise<void>;
  endedAt: () => number | undefined;
  waitForLines(n: number): Promise<string[]>;
  close(): void;
}

function openStream(d: Berthd, urlPath: string): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath: d.socket, method: 'GET', path: urlPath, agent: false });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      let endedAt: number | undefined;
      const ended = new Promise<void>((done, fail) => {
        res.on('end', () => {
          endedAt = Date.now();
          done();
        });
        res.on('error', fail);
      });
      // a test that closes the stream itself does not care how it ended
      ended.catch(() => undefined);
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: () => text,
        lines: () => lines(text),
        ended,
        endedAt: () => endedAt,
        async waitForLines(n) {
          await waitFor(() => lines(text).length >= n || endedAt !== undefined, `${n} event lines on ${urlPath}`);
          return lines(text);
        },
        close: () => req.destroy(),
      });
    });
    req.end();
  });
}

describe('GET /events', () => {
  let d: Berthd;
  let daemon: { ID: string; Name: string };
  /** The raw lines of the three reloads made in `before`, and their times. */
  let past: string[];
  let T: bigint[];

  before(async () => {
    // debug logs show the path each request came in on, so the CLI's API version can be checked
    d = await Berthd.start({ config: { debug: true } });
    daemon = await info(d);
    for (const tag of ['1', '2', '3']) await reload(d, tag);
    // the margin covers any skew between this process's clock and berthd's
    const r = await d.request('GET', `/events?since=0&until=${ts(testNow() + 20_000_000n)}`);
    past = lines(r.body);
    assert.equal(past.length, 3, r.body);
    T = past.map(timeNanoOf);
  });

  after(async () => {
    await d?.stop();
  });

  it('sends the past events between since and until, then ends the stream', async () => {
    const r = await d.request('GET', `/events?since=0&until=${ts(T[2])}`);
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.deepEqual(lines(r.body), past);
    const events = lines(r.body).map((l) => JSON.parse(l) as WireEvent);
    events.forEach((ev, i) => {
      // dockerd's field order; no status/id/from on a daemon event
      assert.deepEqual(Object.keys(ev), ['Type', 'Action', 'Actor', 'scope', 'time', 'timeNano']);
      assert.deepEqual({ ...ev, timeNano: 0 }, {
        Type: 'daemon',
        Action: 'reload',
        Actor: { ID: daemon.ID, Attributes: { debug: 'true', labels: `[seq=${i + 1}]`, name: daemon.Name } },
        scope: 'local',
        time: Number(T[i] / NS),
        timeNano: 0,
      });
    });
  });

  it('prints timeNano as an exact integer, with time its whole seconds', () => {
    for (const line of past) {
      const m = /"time":(\d+),"timeNano":(\d+)\}$/.exec(line);
      assert.ok(m, line);
      assert.match(m[2], /^\d{19}$/);
      assert.equal(m[1], m[2].slice(0, -9));
    }
    assert.ok(T[0] < T[1] && T[1] < T[2], `${T}`);
  });

  it('takes since and until to the nanosecond, both inclusive', async () => {
    const get = async (query: string) => {
      const r = await d.request('GET', `/events?${query}`);
      assert.equal(r.status, 200, r.body);
      return lines(r.body);
    };
    assert.deepEqual(await get(`since=${ts(T[1])}&until=${ts(T[1])}`), [past[1]]);
    assert.deepEqual(await get(`since=${ts(T[1] + 1n)}&until=${ts(T[2])}`), [past[2]]);
    assert.deepEqual(await get(`since=${ts(T[0])}&until=${ts(T[2] - 1n)}`), [past[0], past[1]]);
    assert.deepEqual(await get(`since=0&until=${ts(T[0] - 1n)}`), []);
    // each printed timeNano selects exactly its own event
    for (let i = 0; i < 3; i++) assert.deepEqual(await get(`since=${ts(T[i])}&until=${ts(T[i])}`), [past[i]]);
    // whole seconds, and fractions shorter than nine digits
    assert.deepEqual(await get(`since=${T[0] / NS}&until=${ts(T[2])}`), past);
    assert.deepEqual(await get(`since=${(T[0] / NS).toString()}.0&until=${(T[2] / NS + 1n).toString()}.5`), past);
  });

  it('gives past events with until alone (since defaults to the start of the ring)', async () => {
    const r = await d.request('GET', `/events?until=${ts(T[2])}`);
    assert.equal(r.status, 200);
    assert.deepEqual(lines(r.body), past);
  });

  for (const prefix of ['', '/v1.25', '/v1.40', '/v1.41']) {
    it(`serves the same events at ${prefix || 'no version prefix'}`, async () => {
      const r = await d.request('GET', `${prefix}/events?since=0&until=${ts(T[2])}`);
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.deepEqual(lines(r.body), past);
    });
  }

  for (const [version, path] of [
    [undefined, '/v1.41/events'],
    ['1.40', '/v1.40/events'],
    ['1.25', '/v1.25/events'],
  ] as const) {
    it(`docker system events --since --until prints them (API ${version ?? 'negotiated'})`, async () => {
      const logFrom = d.log.length;
      const c = await d.docker(['system', 'events', '--since', '0', '--until', ts(T[2]), '--format', '{{json .}}'], {
        env: version ? { DOCKER_API_VERSION: version } : {},
      });
      assert.equal(c.code, 0, c.stderr);
      const out = lines(c.stdout);
      assert.equal(out.length, 3, c.stdout);
      out.forEach((line, i) => {
        assert.equal(timeNanoOf(line), T[i]);
        const ev = JSON.parse(line) as WireEvent;
        const api = JSON.parse(past[i]) as WireEvent;
        assert.deepEqual(ev, api);
      });
      assert.ok(d.log.slice(logFrom).includes(`Calling GET ${path}`), `the CLI did not call ${path}`);
    });
  }

  it('docker system events prints them in its own format', async () => {
    const c = await d.docker(['system', 'events', '--since', '0', '--until', ts(T[2])]);
    assert.equal(c.code, 0, c.stderr);
    const out = lines(c.stdout);
    assert.equal(out.length, 3, c.stdout);
    out.forEach((line, i) => {
      assert.ok(line.endsWith(` daemon reload ${daemon.ID} (debug=true, labels=[seq=${i + 1}], name=${daemon.Name})`), line);
    });
  });

  for (const [flags, expected] of [
    [['type=daemon'], [0, 1, 2]],
    [['type=container'], []],
    [['event=reload', 'daemon=<name>'], [0, 1, 2]],
    [['label=labels=[seq=2]'], [1]],
    [['event=start'], []],
  ] as Array<[string[], number[]]>) {
    it(`docker system events --filter ${flags.join(' --filter ')}`, async () => {
      // the daemon's name is known only once `before` has run
      const args = flags.map((f) => f.replace('<name>', daemon.Name));
      const c = await d.docker(['system', 'events', '--since', '0', '--until', ts(T[2]), '--format', '{{json .}}', ...args.flatMap((f) => ['--filter', f])]);
      assert.equal(c.code, 0, c.stderr);
      assert.deepEqual(lines(c.stdout).map(timeNanoOf), expected.map((i) => T[i]));
    });
  }

  describe('filters', () => {
    const cases: Array<{ name: string; filters: () => unknown; expected: number[] }> = [
      { name: 'type, map form', filters: () => ({ type: { daemon: true } }), expected: [0, 1, 2] },
      { name: 'type, legacy list form', filters: () => ({ type: ['daemon'] }), expected: [0, 1, 2] },
      { name: 'type that excludes', filters: () => ({ type: ['container'] }), expected: [] },
      { name: 'type, any of two', filters: () => ({ type: ['container', 'daemon'] }), expected: [0, 1, 2] },
      { name: 'type marked false', filters: () => ({ type: { daemon: false } }), expected: [] },
      { name: 'event', filters: () => ({ event: ['reload'] }), expected: [0, 1, 2] },
      { name: 'event is not a prefix match', filters: () => ({ event: ['rel'] }), expected: [] },
      { name: 'daemon by ID prefix', filters: () => ({ daemon: [daemon.ID.slice(0, 8)] }), expected: [0, 1, 2] },
      { name: 'daemon by name', filters: () => ({ daemon: { [daemon.Name]: true } }), expected: [0, 1, 2] },
      { name: 'daemon that excludes', filters: () => ({ daemon: ['nosuchdaemon'] }), expected: [] },
      { name: 'label key=value', filters: () => ({ label: ['labels=[seq=2]'] }), expected: [1] },
      { name: 'label key', filters: () => ({ label: ['debug'] }), expected: [0, 1, 2] },
      { name: 'label that excludes', filters: () => ({ label: ['debug=false'] }), expected: [] },
      { name: 'labels all of them', filters: () => ({ label: ['labels=[seq=1]', 'labels=[seq=3]'] }), expected: [] },
      { name: 'scope local', filters: () => ({ scope: ['local'] }), expected: [0, 1, 2] },
      { name: 'scope swarm', filters: () => ({ scope: ['swarm'] }), expected: [] },
      { name: 'image excludes a daemon event', filters: () => ({ image: ['busybox'] }), expected: [] },
      { name: 'container excludes a daemon event', filters: () => ({ container: ['web'] }), expected: [] },
      { name: 'an unknown key is ignored', filters: () => ({ nosuchkey: ['x'] }), expected: [0, 1, 2] },
      { name: 'keys combined', filters: () => ({ type: ['daemon'], event: { reload: true }, label: ['labels=[seq=3]'] }), expected: [2] },
      { name: 'null', filters: () => null, expected: [0, 1, 2] },
      {
        name: 'an empty list is no filter, as dockerd',
        filters: () => ({ type: [] }),
        expected: [0, 1, 2],
      },
      {
        name: 'a null value is no filter, as dockerd',
        filters: () => ({ type: null }),
        expected: [0, 1, 2],
      },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        const r = await d.request('GET', `/events?since=0&until=${ts(T[2])}&filters=${q(c.filters())}`);
        assert.equal(r.status, 200, r.body);
        assert.deepEqual(lines(r.body), c.expected.map((i) => past[i]));
      });
    }
  });

  describe('refuses bad parameters before the first byte', () => {
    const cases: Array<[string, string | RegExp]> = [
      ['since=5&until=4', '`since` time (5) cannot be after `until` time (4)'],
      ['since=1.5&until=1.4999', '`since` time (1.5) cannot be after `until` time (1.4999)'],
      ['since=1.000000002&until=1.000000001', '`since` time (1.000000002) cannot be after `until` time (1.000000001)'],
      ['since=abc', /since.*"abc"/],
      ['since=1.', /since.*"1\."/],
      ['until=10m', /until.*"10m"/],
      ['since=0&until=1&filters=nope', /^invalid filters: /],
      [`since=0&until=1&filters=${q([])}`, /^invalid filters: /],
      [`since=0&until=1&filters=${q({ type: 'daemon' })}`, /^invalid filters: .*"type"/],
      [`since=0&until=1&filters=${q({ type: { daemon: 'yes' } })}`, /^invalid filters: /],
    ];
    for (const [query, message] of cases) {
      for (const prefix of ['', '/v1.25']) {
        it(`400 for ${prefix}/events?${query}`, async () => {
          const r = await d.request('GET', `${prefix}/events?${query}`);
          assert.equal(r.status, 400, r.body);
          assert.equal(r.headers['content-type'], 'application/json');
          const body = r.json() as { message: string };
          assert.deepEqual(Object.keys(body), ['message']);
          if (typeof message === 'string') assert.equal(body.message, message);
          else assert.match(body.message, message);
        });
      }
    }

    it('since equal to until is fine', async () => {
      const r = await d.request('GET', '/events?since=4&until=4');
      assert.equal(r.status, 200, r.body);
      assert.equal(r.body, '');
    });

    it('docker system events shows the message and fails', async () => {
      const c = await d.docker(['system', 'events', '--since', '5', '--until', '4']);
      assert.notEqual(c.code, 0);
      assert.ok(c.stderr.includes('`since` time (5) cannot be after `until` time (4)'), c.stderr);
    });
  });

  it('a live subscriber gets events published after it connected, and /info counts it', async () => {
    assert.equal((await info(d)).NEventsListener, 0);
    const s = await openStream(d, '/events');
    try {
      assert.equal(s.status, 200);
      assert.equal(s.headers['content-type'], 'application/json');
      assert.equal((await info(d)).NEventsListener, 1);
      await reload(d, 'live');
      const got = await s.waitForLines(1);
      // no since or until: none of the earlier events, only the new one
      assert.equal(got.length, 1, s.body());
      const ev = JSON.parse(got[0]) as WireEvent;
      assert.equal(ev.Action, 'reload');
      assert.equal(ev.Actor.Attributes.labels, '[seq=live]');
      assert.ok(timeNanoOf(got[0]) > T[2]);
      assert.equal(s.endedAt(), undefined);
    } finally {
      s.close();
    }
    await waitFor(async () => (await info(d)).NEventsListener === 0, 'the subscriber to go away');
  });

  it('a stream with a future until sends past and live events, applies filters, and ends by itself at until', async () => {
    const untilNanos = testNow() + 1_000_000_000n;
    const until = ts(untilNanos);
    const started = Date.now();
    const [sinceLast, excluding, untilOnly] = await Promise.all([
      openStream(d, `/events?since=${ts(T[2])}&until=${until}&filters=${q({ type: ['daemon'] })}`),
      openStream(d, `/events?until=${until}&filters=${q({ type: ['container'] })}`),
      openStream(d, `/v1.40/events?until=${until}`),
    ]);
    try {
      for (const s of [sinceLast, excluding, untilOnly]) assert.equal(s.status, 200);
      assert.equal((await info(d)).NEventsListener, 3);
      await reload(d, 'until');
      await waitFor(() => sinceLast.body().includes('[seq=until]'), 'the live event');
      await Promise.all([sinceLast.ended, excluding.ended, untilOnly.ended]);

      // since is inclusive for past events (earlier tests may have added some after T[2]); the live one comes last
      const got = sinceLast.lines();
      assert.equal(got[0], past[2]);
      const liveLine = got.at(-1) as string;
      const live = JSON.parse(liveLine) as WireEvent;
      assert.equal(live.Actor.Attributes.labels, '[seq=until]');
      assert.ok(timeNanoOf(liveLine) <= untilNanos);
      const times = got.map(timeNanoOf);
      times.slice(1).forEach((t, i) => assert.ok(t > times[i], 'in order'));

      assert.deepEqual(excluding.lines(), []);

      // until alone: the whole ring, then the live event
      const all = untilOnly.lines();
      assert.deepEqual(all.slice(0, 3), past);
      assert.deepEqual(all.slice(2), got);

      const untilMs = Number(untilNanos / 1_000_000n);
      for (const s of [sinceLast, excluding, untilOnly]) {
        const endedAt = s.endedAt() as number;
        assert.ok(endedAt >= untilMs - 5, `ended ${untilMs - endedAt} ms before until`);
        assert.ok(endedAt < untilMs + 1000, `ended ${endedAt - untilMs} ms after until`);
      }
      assert.ok(Date.now() - started < 3000);
    } finally {
      for (const s of [sinceLast, excluding, untilOnly]) s.close();
    }
    await waitFor(async () => (await info(d)).NEventsListener === 0, 'the subscribers to go away');
  });

  it('until=-1 means no until, as dockerd (time -1 is "not given"): past events, then live ones', async () => {
    const s = await openStream(d, '/events?since=0&until=-1');
    try {
      assert.equal(s.status, 200, s.body());
      await reload(d, 'minus-one');
      await waitFor(() => s.body().includes('[seq=minus-one]'), 'the live event');
      assert.deepEqual(s.lines().slice(0, 3), past);
      assert.equal(s.endedAt(), undefined);
    } finally {
      s.close();
    }
  });
});

describe('GET /events when the daemon stops', () => {
  let d: Berthd;

  before(async () => {
    d = await Berthd.start();
  });

  after(async () => {
    await d?.stop();
  });

  it('ends an open stream at once and exits cleanly', async () => {
    const s = await openStream(d, '/events');
    assert.equal(s.status, 200);
    const started = Date.now();
    const exit = await d.stop();
    await s.ended;
    assert.deepEqual(exit, { code: 0, signal: null });
    // streams are cut at once, not after the 5 s grace given to other requests
    assert.ok(Date.now() - started < 4000, `took ${Date.now() - started} ms`);
    assert.deepEqual(s.lines(), []);
  });
});
