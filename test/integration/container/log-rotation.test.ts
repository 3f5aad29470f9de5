// Log rotation as dockerd's json-file and local drivers do it: max-size, max-file and compress bound
// what a chatty container leaves on disk, `docker logs` reads across the rotated (and compressed)
// files with no line lost or repeated, tail counts across them, and bad values fail the start with
// dockerd's "failed to initialize logging driver" (names are checked at create).
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
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

  /** The log files of a container, with their sizes. */
  async function logFiles(name: string): Promise<Array<{ name: string; size: number }>> {
    const id = ((await d.request('GET', `/containers/${name}/json`)).json() as { Id: string }).Id;
    const dir = path.join(d.dataRoot, 'containers', id);
    return readdirSync(dir)
      .filter((f) => f.startsWith('container.log'))
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
    for (const f of files) assert.ok(f.size < 3 * 50_000, `${f.name} is ${f.size} bytes`);
  });

  test('tail counts across the rotated files', async () => {
    const numbers = await runAndRead('rot-tail', ['--log-opt', 'max-size=20k', '--log-opt', 'max-file=4'], ['--tail', '1200']);
    assertContiguousToEnd(numbers);
    // tail counts records, and conmon writes a line it read in pieces as several (as dockerd counts partial messages)
    assert.ok(numbers.length > 900 && numbers.length <= 1200, String(numbers.length));
  });

  test('local: rotated files compressed, read back through the decompressor', async () => {
    const numbers = await runAndRead('rot-local', ['--log-driver', 'local', '--log-opt', 'max-size=50k', '--log-opt', 'max-file=4']);
    assertContiguousToEnd(numbers);
    const names = (await logFiles('rot-local')).map((f) => f.name);
    assert.ok(names.some((n) => n.endsWith('.gz')), names.join(' '));
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
