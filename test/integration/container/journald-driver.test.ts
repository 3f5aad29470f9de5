// The journald log driver as dockerd 20.10's, against a real systemd-journald of the test's own
// (test/helpers/test-journal.ts: a private mount namespace berthd joins, so the host's /run is left
// alone): each message an entry with dockerd's fields (the reference's, read back with journalctl),
// stdout at priority 6 and stderr at 3, a line over 16 KiB as partial messages; `docker logs` reads
// the journal with dockerd's tail, since, until, timestamps and follow; bad options fail create and
// start with the reference's messages. Without a journal (the same namespace, no journald in it),
// create works and start fails as the reference's does: 500 "failed to initialize logging driver:
// journald is not enabled on this host", and `docker logs` 500 "journald is not enabled on this host".
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Berthd } from '../../helpers/berthd.js';
import { startWithBusybox, teardown } from '../../helpers/containers.js';
import { TestJournal, type JournalEntry } from '../../helpers/test-journal.js';
import { until } from '../../helpers/until.js';

/** An entry's own fields: those journald adds (_PID, __CURSOR...) left out. */
function own(entry: JournalEntry): Record<string, string> {
  return Object.fromEntries(Object.entries(entry).filter(([k]) => !k.startsWith('_')));
}

/** RFC 3339 with nine digits, in UTC, as `docker logs --timestamps` prints times. */
function rfc3339Nano(ns: bigint): string {
  return `${new Date(Number(ns / 1_000_000n)).toISOString().slice(0, 19)}.${(ns % 1_000_000_000n).toString().padStart(9, '0')}Z`;
}

/** The time `docker logs --timestamps` gives an entry: when journald received it, to the microsecond. */
function timeOf(entry: JournalEntry): string {
  return rfc3339Nano(BigInt(entry.__REALTIME_TIMESTAMP) * 1000n);
}

describe('journald log driver', () => {
  let journal: TestJournal | undefined;
  let d: Berthd | undefined;
  before(async () => {
    journal = await TestJournal.start('jd');
    d = await startWithBusybox({ mountns: journal.mountns });
  });
  after(async () => {
    if (d !== undefined) await teardown(d);
    journal?.stop();
  });

  const berthd = () => d as Berthd;
  const entriesOf = (id: string) => (journal as TestJournal).entries(`CONTAINER_ID_FULL=${id}`);
  async function idOf(name: string): Promise<string> {
    return ((await berthd().request('GET', `/containers/${name}/json`)).json() as { Id: string }).Id;
  }

  test("each message an entry with dockerd's fields; docker logs gives the lines back, the empty one skipped", async () => {
    const run = await berthd().docker([
      'run', '--name', 'jd-fields', '--log-driver', 'journald',
      '--label', 'com.example.Foo=bar', '--label', '_x.y=z', '--label', 'other=no',
      '-e', 'MY_VAR=hello', '-e', 'REGEX_ONE=1',
      '--log-opt', 'labels=com.example.Foo,_x.y', '--log-opt', 'env=MY_VAR', '--log-opt', 'env-regex=^REGEX', '--log-opt', 'tag={{.Name}}/{{.ImageName}}',
      'busybox', 'sh', '-c', 'echo out1; echo err1 >&2; echo; printf no-nl',
    ]);
    assert.equal(run.code, 0, run.stderr);
    const id = await idOf('jd-fields');
    // the run's end is told once journald has its entries: no waiting here
    const entries = entriesOf(id);
    const container = {
      CONTAINER_ID: id.slice(0, 12),
      CONTAINER_ID_FULL: id,
      CONTAINER_NAME: 'jd-fields',
      CONTAINER_TAG: 'jd-fields/busybox',
      IMAGE_NAME: 'busybox',
      SYSLOG_IDENTIFIER: 'jd-fields/busybox',
      // the options' attributes, keys as dockerd's sanitizeKeyMod makes them
      COM_EXAMPLE_FOO: 'bar',
      X_Y: 'z',
      MY_VAR: 'hello',
      REGEX_ONE: '1',
    };
    const byMessage = new Map(entries.map((e) => [e.MESSAGE, own(e)]));
    assert.equal(entries.length, 4, JSON.stringify(entries.map(own)));
    assert.deepEqual(byMessage.get('out1'), { PRIORITY: '6', MESSAGE: 'out1', ...container });
    assert.deepEqual(byMessage.get('err1'), { PRIORITY: '3', MESSAGE: 'err1', ...container });
    assert.deepEqual(byMessage.get(''), { PRIORITY: '6', MESSAGE: '', ...container });
    // output that ends without a newline is a partial message of its own, not the last
    const partial = byMessage.get('no-nl') ?? {};
    assert.match(partial.CONTAINER_PARTIAL_ID ?? '', /^[0-9a-f]{64}$/);
    assert.deepEqual(partial, {
      PRIORITY: '6',
      MESSAGE: 'no-nl',
      ...container,
      CONTAINER_PARTIAL_ID: partial.CONTAINER_PARTIAL_ID,
      CONTAINER_PARTIAL_ORDINAL: '1',
      CONTAINER_PARTIAL_LAST: 'false',
      CONTAINER_PARTIAL_MESSAGE: 'true',
    });

    const logs = await berthd().docker(['logs', 'jd-fields']);
    assert.equal(logs.code, 0, logs.stderr);
    assert.equal(logs.stdout, 'out1\nno-nl');
    assert.equal(logs.stderr, 'err1\n');
    const inspect = (await berthd().request('GET', `/containers/${id}/json`)).json() as { LogPath: string };
    assert.equal(inspect.LogPath, '');
  });

  test('a line of 40 000 bytes: three partial messages of 16 KiB at most, joined again by docker logs', async () => {
    const run = await berthd().docker(['run', '--name', 'jd-long', '--log-driver', 'journald', 'busybox', 'sh', '-c', 'head -c 40000 /dev/zero | tr "\\0" a; echo; echo after']);
    assert.equal(run.code, 0, run.stderr);
    const entries = entriesOf(await idOf('jd-long')).map(own);
    assert.deepEqual(entries.map((e) => e.MESSAGE.length), [16384, 16384, 7232, 5]);
    const [first, second, third, after] = entries;
    for (const piece of [first, second, third]) {
      assert.match(piece.MESSAGE, /^a+$/);
      assert.equal(piece.CONTAINER_PARTIAL_ID, first.CONTAINER_PARTIAL_ID);
    }
    assert.deepEqual([first, second, third].map((e) => [e.CONTAINER_PARTIAL_ORDINAL, e.CONTAINER_PARTIAL_LAST, e.CONTAINER_PARTIAL_MESSAGE]), [
      ['1', 'false', 'true'],
      ['2', 'false', 'true'],
      ['3', 'true', undefined],
    ]);
    assert.equal(after.MESSAGE, 'after');
    assert.equal(after.CONTAINER_PARTIAL_ID, undefined);

    const logs = await berthd().docker(['logs', 'jd-long']);
    assert.equal(logs.stdout, `${'a'.repeat(40000)}\nafter\n`);
    // tail counts entries, as the reference's (7239 bytes: the last piece and the next line)
    const tail = await berthd().docker(['logs', '--tail', '2', 'jd-long']);
    assert.equal(tail.stdout, `${'a'.repeat(7232)}\nafter\n`);
  });

  test('docker logs: tail counts entries of both streams up to until; since and until to the microsecond; timestamps are journald\'s', async () => {
    // a pause between lines: each goes alone, at a time of its own (entries sent together share journald's)
    const run = await berthd().docker(['run', '--name', 'jd-read', '--log-driver', 'journald', 'busybox', 'sh', '-c', 'for i in 1 2 3 4 5; do echo line$i; sleep 0.1; done; echo oops >&2; sleep 0.1; echo line6']);
    assert.equal(run.code, 0, run.stderr);
    const entries = entriesOf(await idOf('jd-read'));
    assert.equal(entries.length, 7);
    const at = (message: string) => entries.find((e) => e.MESSAGE === message) as JournalEntry;
    const us = (e: JournalEntry) => BigInt(e.__REALTIME_TIMESTAMP);
    assert.deepEqual(entries.map((e) => e.MESSAGE), ['line1', 'line2', 'line3', 'line4', 'line5', 'oops', 'line6']);
    assert.equal(new Set(entries.map(us)).size, 7);

    /** what docker logs should give of these entries, stdout and stderr */
    const expected = (chosen: JournalEntry[], timestamps = false) => {
      const text = (stream: string) => chosen.filter((e) => e.PRIORITY === stream).map((e) => `${timestamps ? `${timeOf(e)} ` : ''}${e.MESSAGE}\n`).join('');
      return { stdout: text('6'), stderr: text('3') };
    };
    const logs = async (args: string[]) => {
      const r = await berthd().docker(['logs', ...args, 'jd-read']);
      assert.equal(r.code, 0, r.stderr);
      return { stdout: r.stdout, stderr: r.stderr };
    };

    assert.deepEqual(await logs([]), expected(entries));
    assert.deepEqual(await logs(['--timestamps']), expected(entries, true));
    assert.deepEqual(await logs(['--tail', '2']), expected(entries.slice(-2)));
    assert.deepEqual(await logs(['--tail', '0']), { stdout: '', stderr: '' });
    const line3 = at('line3');
    assert.deepEqual(await logs(['--since', timeOf(line3)]), expected(entries.filter((e) => us(e) >= us(line3))));
    assert.deepEqual(await logs(['--until', timeOf(line3)]), expected(entries.filter((e) => us(e) <= us(line3))));
    // a nanosecond before the entry's microsecond: it is left out
    assert.deepEqual(await logs(['--until', rfc3339Nano(us(line3) * 1000n - 1n)]), expected(entries.filter((e) => us(e) < us(line3))));
    // the tail is counted back from until, then since applies
    assert.deepEqual(await logs(['--tail', '2', '--until', timeOf(at('line4'))]), expected(entries.filter((e) => us(e) <= us(at('line4'))).slice(-2)));
    assert.deepEqual(await logs(['--tail', '4', '--since', timeOf(line3)]), expected(entries.slice(-4).filter((e) => us(e) >= us(line3))));
  });

  test('a burst of 20 000 lines: every one in the journal, in order', async () => {
    const run = await berthd().docker(['run', '--name', 'jd-burst', '--log-driver', 'journald', 'busybox', 'sh', '-c', 'i=0; while [ $i -lt 20000 ]; do echo "line $i"; i=$((i+1)); done']);
    assert.equal(run.code, 0, run.stderr);
    const expected = Array.from({ length: 20000 }, (_, i) => `line ${i}\n`).join('');
    const logs = await berthd().docker(['logs', 'jd-burst']);
    assert.equal(logs.stdout, expected);
    const messages = (journal as TestJournal).journalctl(['--output=cat', `CONTAINER_ID_FULL=${await idOf('jd-burst')}`]);
    assert.equal(messages, expected);
  });

  test('docker logs --follow ends with the run, nothing lost; with --tail 0 only what comes next', async () => {
    const started = await berthd().docker(['run', '-d', '--name', 'jd-follow', '--log-driver', 'journald', 'busybox', 'sh', '-c', 'echo one; sleep 1; echo two; sleep 1; echo three']);
    assert.equal(started.code, 0, started.stderr);
    const followed = await berthd().docker(['logs', '--follow', 'jd-follow'], { timeoutMs: 20_000 });
    assert.equal(followed.code, 0, followed.stderr);
    assert.equal(followed.stdout, 'one\ntwo\nthree\n');

    const next = await berthd().docker(['run', '-d', '--name', 'jd-next', '--log-driver', 'journald', 'busybox', 'sh', '-c', 'echo old; sleep 3; echo new1; sleep 1; printf new2']);
    assert.equal(next.code, 0, next.stderr);
    const id = await idOf('jd-next');
    await until('the first line in the journal', () => entriesOf(id).length, (n) => n >= 1);
    const fromNow = await berthd().docker(['logs', '--follow', '--tail', '0', '--timestamps', 'jd-next'], { timeoutMs: 20_000 });
    assert.equal(fromNow.code, 0, fromNow.stderr);
    const entries = entriesOf(id);
    assert.equal(fromNow.stdout, `${timeOf(entries[1])} new1\n${timeOf(entries[2])} new2`);
  });

  test('a run adopted after berthd restarted goes on writing to the journal', async () => {
    const first = berthd();
    const run = await first.docker(['run', '-d', '--name', 'jd-adopted', '--log-driver', 'journald', 'busybox', 'sh', '-c', 'echo before; sleep 3; echo after']);
    assert.equal(run.code, 0, run.stderr);
    const id = await idOf('jd-adopted');
    await until('the first line in the journal', () => entriesOf(id).length, (n) => n >= 1);
    await first.stop('SIGTERM');
    d = await Berthd.start({ dataRoot: first.dataRoot, socket: first.socket, execRoot: `${first.dir}/exec`, netns: first.netns, mountns: (journal as TestJournal).mountns });
    const wait = await berthd().docker(['wait', 'jd-adopted'], { timeoutMs: 20_000 });
    assert.equal(wait.stdout, '0\n');
    assert.deepEqual(entriesOf(id).map((e) => e.MESSAGE), ['before', 'after']);
    const logs = await berthd().docker(['logs', 'jd-adopted']);
    assert.equal(logs.stdout, 'before\nafter\n');
  });

  test("options: others than dockerd's are refused at create (400), a bad tag or pattern fails the start and docker logs (500)", async () => {
    const create = (config: Record<string, string>) => berthd().request('POST', '/containers/create', { json: { Image: 'busybox', Cmd: ['true'], HostConfig: { LogConfig: { Type: 'journald', Config: config } } } });
    let r = await create({ 'max-size': '1m' });
    assert.equal(r.status, 400);
    assert.deepEqual(r.json(), { message: "unknown log opt 'max-size' for journald log driver" });
    // dockerd's own options, which every driver takes
    r = await create({ mode: 'non-blocking', 'max-buffer-size': '1m', 'cache-disabled': 'true', labels: 'a', 'labels-regex': 'b', env: 'c', 'env-regex': 'd', tag: 'e' });
    assert.equal(r.status, 201, r.body);

    r = await create({ tag: '{{.Nope}}' });
    assert.equal(r.status, 201, r.body);
    const { Id } = r.json() as { Id: string };
    const template = 'template: log-tag:1:2: executing "log-tag" at <.Nope>: can\'t evaluate field Nope in type *logger.Info';
    r = await berthd().request('POST', `/containers/${Id}/start`);
    assert.equal(r.status, 500);
    assert.deepEqual(r.json(), { message: `failed to initialize logging driver: ${template}` });
    r = await berthd().request('GET', `/containers/${Id}/logs?stdout=1`);
    assert.equal(r.status, 500);
    assert.deepEqual(r.json(), { message: template });

    // a pattern is compiled whether or not the container has labels to match, as dockerd's
    r = await create({ 'labels-regex': '(' });
    assert.equal(r.status, 201, r.body);
    r = await berthd().request('POST', `/containers/${(r.json() as { Id: string }).Id}/start`);
    assert.equal(r.status, 500);
    assert.deepEqual(r.json(), { message: 'failed to initialize logging driver: error parsing regexp: missing closing ): `(`' });

    // berth's own limit: fields that would make an entry over the relay's 64 KiB datagram (dockerd
    // sends such entries through a file descriptor)
    r = await berthd().request('POST', '/containers/create', { json: { Image: 'busybox', Cmd: ['true'], Labels: { big: 'x'.repeat(50_000) }, HostConfig: { LogConfig: { Type: 'journald', Config: { labels: 'big' } } } } });
    assert.equal(r.status, 201, r.body);
    r = await berthd().request('POST', `/containers/${(r.json() as { Id: string }).Id}/start`);
    assert.equal(r.status, 500);
    assert.match((r.json() as { message: string }).message, /^failed to initialize logging driver: journald: the container's fields .* make entries of up to 66\d{3} bytes, more than the 65536 berth sends the journal in one datagram$/);
  });

  test('docker info lists journald among the log drivers', async () => {
    const info = (await berthd().request('GET', '/info')).json() as { Plugins: { Log: string[] } };
    assert.deepEqual(info.Plugins.Log, ['journald', 'json-file', 'local', 'syslog']);
  });
});

describe('journald log driver without a journal', () => {
  let empty: TestJournal | undefined;
  let d: Berthd | undefined;
  before(async () => {
    // the same private /run/systemd, with no journald in it: whatever the host runs
    empty = await TestJournal.start('nojd', { journald: false });
    d = await startWithBusybox({ mountns: empty.mountns });
  });
  after(async () => {
    if (d !== undefined) await teardown(d);
    empty?.stop();
  });

  test("create works; start fails as the reference's: 500 \"failed to initialize logging driver: journald is not enabled on this host\"", async () => {
    const berthd = d as Berthd;
    let r = await berthd.request('POST', '/containers/create?name=jd-none', { json: { Image: 'busybox', Cmd: ['echo', 'hi'], HostConfig: { LogConfig: { Type: 'journald', Config: {} } } } });
    assert.equal(r.status, 201, r.body);
    r = await berthd.request('POST', '/containers/jd-none/start');
    assert.equal(r.status, 500);
    assert.deepEqual(r.json(), { message: 'failed to initialize logging driver: journald is not enabled on this host' });
    // docker logs starts the driver first, as dockerd's getLogger does
    r = await berthd.request('GET', '/containers/jd-none/logs?stdout=1');
    assert.equal(r.status, 500);
    assert.deepEqual(r.json(), { message: 'journald is not enabled on this host' });

    const run = await berthd.docker(['run', '--rm', '--log-driver', 'journald', 'busybox', 'echo', 'hi']);
    assert.equal(run.code, 125);
    assert.match(run.stderr, /^docker: Error response from daemon: failed to initialize logging driver: journald is not enabled on this host$/m);
  });
});
