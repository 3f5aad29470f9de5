// The json-file and local drivers as dockerd's: each writes its own on-disk format (json-file's
// <id>-json.log lines, local's size-framed protobuf entries), max-size, max-file and compress bound
// what a chatty container leaves on disk (the container waits for the writing, as under dockerd),
// `docker logs` reads across the rotated (and compressed) files with no line lost or repeated,
// lines over 16 KiB are split into partial messages and joined again, and bad values fail the
// start with dockerd's "failed to initialize logging driver" (names are checked at create).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Berthd } from '../../helpers/berthd.js';
import { startWithBusybox, teardown } from '../../helpers/containers.js';

const LINES = 20_000;
const WRITE = `i=0; while [ $i -lt ${LINES} ]; do echo "line $i"; i=$((i+1)); done`;

describe('log rotation (json-file and local)', () => {
  let d: Berthd;
  before(async () => {
    d = await startWithBusybox();
  });
  after(async () => {
    await teardown(d);
  });

  async function idOf(name: string): Promise<string> {
    return ((await d.request('GET', `/containers/${name}/json`)).json() as { Id: string }).Id;
  }

  /** The log files of a container (json-file's, or local's with `local`), with their sizes. */
  async function logFiles(name: string, driver: 'json-file' | 'local' = 'json-file'): Promise<Array<{ name: string; size: number }>> {
    const id = await idOf(name);
    const dir = driver === 'local' ? path.join(d.dataRoot, 'containers', id, 'local-logs') : path.join(d.dataRoot, 'containers', id);
    const base = driver === 'local' ? 'container.log' : `${id}-json.log`;
    return readdirSync(dir)
      .filter((f) => f.startsWith(base))
      .map((f) => ({ name: f, size: statSync(path.join(dir, f)).size }));
  }

  /** Runs the writer to its end; its log as `docker logs` gives it, a number per line. */
  async function runAndRead(name: string, logOpts: string[], logsArgs: string[] = []): Promise<number[]> {
    const run = await d.docker(['run', '--name', name, ...logOpts, 'busybox', 'sh', '-c', WRITE]);
    assert.equal(run.code, 0, run.stderr);
    const logs = await d.docker(['logs', ...logsArgs, name]);
    assert.equal(logs.code, 0, logs.stderr);
    return logs.stdout
      .trim()
      .split('\n')
      .map((l) => Number(/^line (\d+)$/.exec(l)?.[1] ?? NaN));
  }

  /** The numbers end at the last line written and run on with no gap or repeat. */
  function assertContiguousToEnd(numbers: number[]): void {
    assert.equal(numbers.at(-1), LINES - 1);
    numbers.forEach((n, i) => assert.equal(n, numbers[0] + i, `line ${i} of the log is ${n}, not ${numbers[0] + i}`));
  }

  test('json-file with max-size and max-file: at most max-file files near max-size each, the newest lines whole', async () => {
    const numbers = await runAndRead('rot-json', ['--log-opt', 'max-size=50k', '--log-opt', 'max-file=3']);
    assertContiguousToEnd(numbers);
    assert.ok(numbers[0] > 0, 'the oldest lines were rotated away');
    const files = await logFiles('rot-json');
    assert.ok(files.length <= 3, JSON.stringify(files));
    // past max-size by one entry at most
    for (const f of files) assert.ok(f.size < 50_000 + 100, `${f.name} is ${f.size} bytes`);
  });

  test("json-file's on-disk format: dockerd's lines, its escapes and its time, attrs from the options", async () => {
    const script = 'echo \'a<b>&"q"\\\'; printf "\\377 ok\\n"; echo err >&2; printf tail-no-nl';
    const run = await d.docker(['run', '--name', 'fmt-json', '--label', 'team=core', '--log-opt', 'labels=team', '--log-opt', 'tag={{.Name}}', 'busybox', 'sh', '-c', script]);
    assert.equal(run.code, 0, run.stderr);
    const id = await idOf('fmt-json');
    const logPath = ((await d.request('GET', `/containers/${id}/json`)).json() as { LogPath: string }).LogPath;
    assert.equal(logPath, path.join(d.dataRoot, 'containers', id, `${id}-json.log`));
    const lines = readFileSync(logPath, 'utf8').trimEnd().split('\n');
    const shape = /^\{"log":"(.*)","stream":"(stdout|stderr)","attrs":\{"tag":"fmt-json","team":"core"\},"time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d*[1-9])?Z"\}$/;
    for (const line of lines) assert.match(line, shape);
    const logs = lines.map((l) => `${(shape.exec(l) as RegExpExecArray)[2]}:${(shape.exec(l) as RegExpExecArray)[1]}`);
    assert.deepEqual(logs.filter((l) => l.startsWith('stdout')), ['stdout:a\\u003cb\\u003e\\u0026\\"q\\"\\\\\\n', 'stdout:\\ufffd ok\\n', 'stdout:tail-no-nl']);
    assert.deepEqual(logs.filter((l) => l.startsWith('stderr')), ['stderr:err\\n']);
  });

  test('a line over 16 KiB is written as partial messages of 16 KiB and read back whole', async () => {
    const run = await d.docker(['run', '--name', 'long-line', 'busybox', 'sh', '-c', 'head -c 40000 /dev/zero | tr "\\0" x; echo; echo after']);
    assert.equal(run.code, 0, run.stderr);
    const id = await idOf('long-line');
    const entries = readFileSync(path.join(d.dataRoot, 'containers', id, `${id}-json.log`), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as { log: string }).log);
    assert.deepEqual(entries.map((e) => e.length), [16384, 16384, 40000 - 2 * 16384 + 1, 6]);
    const logs = await d.docker(['logs', 'long-line']);
    assert.equal(logs.stdout, `${'x'.repeat(40000)}\nafter\n`);
  });

  test('tail counts across the rotated files', async () => {
    const numbers = await runAndRead('rot-tail', ['--log-opt', 'max-size=40k', '--log-opt', 'max-file=4'], ['--tail', '1200']);
    assertContiguousToEnd(numbers);
    assert.equal(numbers.length, 1200);
  });

  test('local: rotated files compressed, read back through the decompressor', async () => {
    const numbers = await runAndRead('rot-local', ['--log-driver', 'local', '--log-opt', 'max-size=50k', '--log-opt', 'max-file=4']);
    assertContiguousToEnd(numbers);
    const files = await logFiles('rot-local', 'local');
    assert.ok(files.some((f) => f.name.endsWith('.gz')), JSON.stringify(files));
    assert.ok(files.length <= 4, JSON.stringify(files));
    // local's entries: a size, the protobuf entry, the size again
    const id = await idOf('rot-local');
    const current = readFileSync(path.join(d.dataRoot, 'containers', id, 'local-logs', 'container.log'));
    let at = 0;
    while (at < current.length) {
      const size = current.readUInt32BE(at);
      assert.equal(current.readUInt32BE(at + 4 + size), size, `the entry at ${at} ends with its size`);
      assert.equal(current.subarray(at + 4, at + 12).toString('latin1'), '\n\x06stdout');
      at += 8 + size;
    }
    assert.equal(at, current.length);
    assert.equal(((await d.request('GET', `/containers/${id}/json`)).json() as { LogPath: string }).LogPath, '');
  });

  test("bad values fail the start in dockerd's words; unknown names fail the create", async () => {
    const cases: Array<[string[], string]> = [
      [['--log-opt', 'max-size=abc'], "failed to initialize logging driver: invalid size: 'abc'"],
      [['--log-opt', 'max-file=0'], 'failed to initialize logging driver: max-file cannot be less than 1'],
      [['--log-opt', 'max-size=0'], 'failed to initialize logging driver: max-size must be a positive number'],
      [['--log-opt', 'compress=true'], 'failed to initialize logging driver: compress cannot be true when max-file is less than 2 or max-size is not set'],
      [['--log-opt', 'compress=maybe'], 'failed to initialize logging driver: strconv.ParseBool: parsing "maybe": invalid syntax'],
    ];
    for (const [opts, message] of cases) {
      const run = await d.docker(['run', '--rm', ...opts, 'busybox', 'true']);
      assert.notEqual(run.code, 0);
      assert.ok(run.stderr.includes(message), run.stderr);
    }
    const create = await d.docker(['create', '--log-driver', 'local', '--log-opt', 'foo=1', 'busybox', 'true']);
    assert.ok(create.stderr.includes("unknown log opt 'foo' for log driver local"), create.stderr);
  });

  test('daemon.json log-driver and log-opts are what a container without its own gets, its options over them', async () => {
    const daemon = await startWithBusybox({ config: { 'log-driver': 'local', 'log-opts': { 'max-size': '20k', 'max-file': '3' } } });
    try {
      const logConfig = async (name: string) => ((await daemon.request('GET', `/containers/${name}/json`)).json() as { HostConfig: { LogConfig: unknown } }).HostConfig.LogConfig;
      assert.equal((await daemon.docker(['create', '--name', 'plain', 'busybox', 'true'])).code, 0);
      assert.deepEqual(await logConfig('plain'), { Type: 'local', Config: { 'max-size': '20k', 'max-file': '3' } });
      assert.equal((await daemon.docker(['create', '--name', 'own', '--log-opt', 'max-file=2', 'busybox', 'true'])).code, 0);
      assert.deepEqual(await logConfig('own'), { Type: 'local', Config: { 'max-size': '20k', 'max-file': '2' } });
      assert.equal((await daemon.docker(['create', '--name', 'other', '--log-driver', 'json-file', 'busybox', 'true'])).code, 0);
      assert.deepEqual(await logConfig('other'), { Type: 'json-file', Config: {} });
    } finally {
      await teardown(daemon);
    }
  });
});
