import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, openSync, closeSync, ftruncateSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { logEndOffset, readContainerLog, type LogReadOptions } from './container-log.js';
import { formatRfc3339NanoFixed } from '../../lib/timestamp.js';
import { k8sFileCodec, parseK8sLine, parseLogTime, type LogEntry } from './log-codecs.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'berth-log-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const newPath = () => path.join(dir, `ctr-${n++}.log`);

const BASE_NS = 1_700_000_000_000_000_000n;
/** A k8s-file record at BASE + seconds. */
function rec(seconds: number, stream: 'stdout' | 'stderr', tag: 'F' | 'P', text: string | Buffer): Buffer {
  const time = formatRfc3339NanoFixed(BASE_NS + BigInt(seconds) * 1_000_000_000n).replace('Z', '+00:00');
  return Buffer.concat([Buffer.from(`${time} ${stream} ${tag} `), Buffer.from(text), Buffer.from('\n')]);
}

const all: LogReadOptions = { stdout: true, stderr: true, follow: false };

async function collect(it: AsyncIterable<LogEntry>): Promise<string[]> {
  const out: string[] = [];
  for await (const e of it) out.push(`${e.stream}:${e.data.toString('latin1')}`);
  return out;
}

describe('parseK8sLine', () => {
  it('reads whole and partial records, adding the newline only to whole ones', () => {
    const full = parseK8sLine(Buffer.from('2023-11-14T22:13:20.000000001+00:00 stdout F hello'));
    assert.deepEqual(full && { ...full, data: full.data.toString() }, {
      stream: 'stdout',
      timeNs: BASE_NS + 1n,
      time: '2023-11-14T22:13:20.000000001Z',
      data: 'hello\n',
      full: true,
    });
    const partial = parseK8sLine(Buffer.from('2023-11-14T22:13:20Z stderr P par'));
    assert.equal(partial?.stream, 'stderr');
    assert.equal(partial?.data.toString(), 'par');
    assert.equal(parseK8sLine(Buffer.from('2023-11-14T22:13:20Z stdout F '))?.data.toString(), '\n');
    assert.equal(parseK8sLine(Buffer.from('2023-11-14T22:13:20Z stdout F'))?.data.toString(), '\n');
  });

  it('keeps any bytes, including invalid UTF-8 and carriage returns', () => {
    const bytes = Buffer.from([0xff, 0x00, 0xc3, 0x28, 0x0d, 0x20, 0x41]);
    const e = parseK8sLine(Buffer.concat([Buffer.from('2023-11-14T22:13:20Z stdout F '), bytes]));
    assert.deepEqual(e?.data, Buffer.concat([bytes, Buffer.from('\n')]));
  });

  it('refuses lines that are not records', () => {
    for (const line of ['', 'garbage', '2023-11-14T22:13:20Z stdin F x', '2023-11-14T22:13:20Z stdout X x', 'yesterday stdout F x', '2023-11-14T22:13:20Z stdout Fx']) {
      assert.equal(parseK8sLine(Buffer.from(line)), undefined, line);
    }
  });

  it('reads times in any zone and prints them in UTC with nine digits, as dockerd', () => {
    assert.equal(parseLogTime('2023-11-14T23:13:20.5+01:00'), BASE_NS + 500_000_000n);
    assert.equal(parseLogTime('2023-11-14T20:13:20-02:00'), BASE_NS);
    assert.equal(formatRfc3339NanoFixed(BASE_NS + 5n), '2023-11-14T22:13:20.000000005Z');
    assert.equal(parseLogTime('2023-11-14 22:13:20Z'), undefined);
  });
});

describe('readContainerLog', () => {
  const file = newPath();
  writeFileSync(file, Buffer.concat([
    rec(1, 'stdout', 'F', 'a1'),
    rec(2, 'stderr', 'F', 'b1'),
    rec(3, 'stdout', 'P', 'part'),
    rec(4, 'stdout', 'F', 'ial'),
    rec(5, 'stderr', 'F', 'b2'),
    rec(6, 'stdout', 'F', 'a2'),
  ]));

  it('reads every record of both streams, partial chunks as entries of their own', async () => {
    assert.deepEqual(await collect(readContainerLog(file, k8sFileCodec, all)), ['stdout:a1\n', 'stderr:b1\n', 'stdout:part', 'stdout:ial\n', 'stderr:b2\n', 'stdout:a2\n']);
  });

  it('chooses streams', async () => {
    assert.deepEqual(await collect(readContainerLog(file, k8sFileCodec, { ...all, stderr: false })), ['stdout:a1\n', 'stdout:part', 'stdout:ial\n', 'stdout:a2\n']);
    assert.deepEqual(await collect(readContainerLog(file, k8sFileCodec, { ...all, stdout: false })), ['stderr:b1\n', 'stderr:b2\n']);
  });

  it('counts tail over both streams before choosing one, as dockerd', async () => {
    assert.deepEqual(await collect(readContainerLog(file, k8sFileCodec, { ...all, tail: 2 })), ['stderr:b2\n', 'stdout:a2\n']);
    assert.deepEqual(await collect(readContainerLog(file, k8sFileCodec, { ...all, stderr: false, tail: 2 })), ['stdout:a2\n']);
    assert.deepEqual(await collect(readContainerLog(file, k8sFileCodec, { ...all, tail: 3 })), ['stdout:ial\n', 'stderr:b2\n', 'stdout:a2\n']);
    assert.equal((await collect(readContainerLog(file, k8sFileCodec, { ...all, tail: 6 }))).length, 6);
    assert.equal((await collect(readContainerLog(file, k8sFileCodec, { ...all, tail: 100 }))).length, 6);
    assert.deepEqual(await collect(readContainerLog(file, k8sFileCodec, { ...all, tail: 0 })), []);
  });

  it('keeps records from since on and stops after until, both inclusive', async () => {
    const at = (s: number) => BASE_NS + BigInt(s) * 1_000_000_000n;
    assert.deepEqual(await collect(readContainerLog(file, k8sFileCodec, { ...all, sinceNs: at(5) })), ['stderr:b2\n', 'stdout:a2\n']);
    assert.deepEqual(await collect(readContainerLog(file, k8sFileCodec, { ...all, untilNs: at(2) })), ['stdout:a1\n', 'stderr:b1\n']);
    assert.deepEqual(await collect(readContainerLog(file, k8sFileCodec, { ...all, sinceNs: at(2), untilNs: at(3) })), ['stderr:b1\n', 'stdout:part']);
    // tail first, then since: the last two records, of which one is late enough
    assert.deepEqual(await collect(readContainerLog(file, k8sFileCodec, { ...all, tail: 2, sinceNs: at(6) })), ['stdout:a2\n']);
  });

  it('reads a missing log as empty', async () => {
    assert.deepEqual(await collect(readContainerLog(path.join(dir, 'none.log'), k8sFileCodec, all)), []);
  });

  it('keeps records longer than its read block whole, and binary', async () => {
    const big = newPath();
    const text = Buffer.alloc(200_000, 0x78);
    text[1000] = 0x00;
    text[150_000] = 0xff;
    writeFileSync(big, Buffer.concat([rec(1, 'stdout', 'F', text), rec(2, 'stderr', 'F', 'end')]));
    const entries: LogEntry[] = [];
    for await (const e of readContainerLog(big, k8sFileCodec, all)) entries.push(e);
    assert.equal(entries.length, 2);
    assert.deepEqual(entries[0].data, Buffer.concat([text, Buffer.from('\n')]));
    const tailed: LogEntry[] = [];
    for await (const e of readContainerLog(big, k8sFileCodec, { ...all, tail: 1 })) tailed.push(e);
    assert.deepEqual(tailed.map((e) => e.data.toString()), ['end\n']);
  });

  it('tails a huge log by reading from its end', async () => {
    // 8 GiB of hole, then records: reading it from the start would take many seconds
    const huge = newPath();
    const fd = openSync(huge, 'w');
    ftruncateSync(fd, 8 * 1024 ** 3);
    closeSync(fd);
    const lines: Buffer[] = [Buffer.from('\n')];
    for (let i = 0; i < 50_000; i++) lines.push(rec(i, i % 2 ? 'stderr' : 'stdout', 'F', `line ${i}`));
    appendFileSync(huge, Buffer.concat(lines));
    const readBefore = bytesReadSoFar();
    const got = await collect(readContainerLog(huge, k8sFileCodec, { ...all, tail: 3 }));
    assert.deepEqual(got, ['stderr:line 49997\n', 'stdout:line 49998\n', 'stderr:line 49999\n']);
    // the hole was never read: a few blocks from the end were
    const read = bytesReadSoFar() - readBefore;
    assert.ok(read < 1024 * 1024, `tail read ${read} bytes`);
    rmSync(huge);
  });
});

/** What this process has read through read(2) and its kin so far (/proc/self/io's rchar). */
function bytesReadSoFar(): number {
  return Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1]);
}

describe('readContainerLog following', () => {
  function ender(): { ended: Promise<void>; end(): void } {
    let end!: () => void;
    const ended = new Promise<void>((r) => (end = r));
    return { ended, end };
  }

  it('reads the files rotated while it was more than one rotation behind', async () => {
    const file = newPath();
    writeFileSync(file, Buffer.concat([rec(1, 'stdout', 'F', 'a1'), rec(2, 'stdout', 'F', 'a2')]));
    const { ended, end } = ender();
    const reader = readContainerLog(file, k8sFileCodec, { ...all, follow: true, ended })[Symbol.asyncIterator]();
    const got = [((await reader.next()).value as LogEntry).data.toString()];
    // two rotations before the follower reads on: a → .2, b → .1, c current
    renameSync(file, `${file}.1`);
    writeFileSync(file, rec(3, 'stdout', 'F', 'b1'));
    renameSync(`${file}.1`, `${file}.2`);
    renameSync(file, `${file}.1`);
    writeFileSync(file, rec(4, 'stdout', 'F', 'c1'));
    end();
    for (let r = await reader.next(); !r.done; r = await reader.next()) got.push(r.value.data.toString());
    assert.deepEqual(got, ['a1\n', 'a2\n', 'b1\n', 'c1\n']);
  });

  it('reads appended records, including a record written in two pieces, until the container ends', async () => {
    const file = newPath();
    writeFileSync(file, rec(1, 'stdout', 'F', 'first'));
    const { ended, end } = ender();
    const got: string[] = [];
    const reading = (async () => {
      for await (const e of readContainerLog(file, k8sFileCodec, { ...all, follow: true, ended })) got.push(e.data.toString());
    })();
    await waitFor(() => got.length === 1);
    const second = rec(2, 'stderr', 'F', 'second');
    appendFileSync(file, second.subarray(0, 10));
    await new Promise((r) => setTimeout(r, 50));
    appendFileSync(file, second.subarray(10));
    await waitFor(() => got.length === 2);
    // written just before the end is reported: still read
    appendFileSync(file, Buffer.concat([rec(3, 'stdout', 'P', 'last'), rec(4, 'stdout', 'F', '')]));
    end();
    await reading;
    assert.deepEqual(got, ['first\n', 'second\n', 'last', '\n']);
  });

  it('waits for a log that does not exist yet, and starts where it ended when asked', async () => {
    const file = newPath();
    const { ended, end } = ender();
    const got: string[] = [];
    const reading = (async () => {
      for await (const e of readContainerLog(file, k8sFileCodec, { ...all, follow: true, fromOffset: await logEndOffset(file), ended })) got.push(e.data.toString());
    })();
    await new Promise((r) => setTimeout(r, 100));
    writeFileSync(file, rec(1, 'stdout', 'F', 'born'));
    await waitFor(() => got.length === 1);
    end();
    await reading;
    assert.deepEqual(got, ['born\n']);

    // an existing log followed from its end gives only what comes after
    const later = ender();
    const fromEnd: string[] = [];
    const again = (async () => {
      for await (const e of readContainerLog(file, k8sFileCodec, { ...all, follow: true, fromOffset: await logEndOffset(file), ended: later.ended })) fromEnd.push(e.data.toString());
    })();
    await new Promise((r) => setTimeout(r, 100));
    appendFileSync(file, rec(2, 'stdout', 'F', 'new'));
    later.end();
    await again;
    assert.deepEqual(fromEnd, ['new\n']);
  });

  it('follows a log replaced by a new file (rotation), after reading the old one to its end', async () => {
    const file = newPath();
    writeFileSync(file, rec(1, 'stdout', 'F', 'old'));
    const { ended, end } = ender();
    const got: string[] = [];
    const reading = (async () => {
      for await (const e of readContainerLog(file, k8sFileCodec, { ...all, follow: true, ended })) got.push(e.data.toString());
    })();
    await waitFor(() => got.length === 1);
    const fresh = `${file}.tmp`;
    writeFileSync(fresh, rec(2, 'stdout', 'F', 'rotated'));
    renameSync(fresh, file);
    await waitFor(() => got.length === 2);
    appendFileSync(file, rec(3, 'stdout', 'F', 'more'));
    end();
    await reading;
    assert.deepEqual(got, ['old\n', 'rotated\n', 'more\n']);
  });

  it('stops on abort, and when the consumer stops', async () => {
    const file = newPath();
    writeFileSync(file, rec(1, 'stdout', 'F', 'x'));
    const ac = new AbortController();
    const got: string[] = [];
    const reading = (async () => {
      for await (const e of readContainerLog(file, k8sFileCodec, { ...all, follow: true, signal: ac.signal })) got.push(e.data.toString());
    })();
    await waitFor(() => got.length === 1);
    ac.abort();
    await reading;
    // a consumer that leaves after the first entry ends the follow (the test would hang otherwise)
    let seen = '';
    for await (const e of readContainerLog(file, k8sFileCodec, { ...all, follow: true })) {
      seen = e.data.toString();
      break;
    }
    assert.equal(seen, 'x\n');
  });

  it('stops following once until has passed', async () => {
    const file = newPath();
    writeFileSync(file, rec(1, 'stdout', 'F', 'x'));
    const untilNs = BigInt(Date.now() + 300) * 1_000_000n;
    const got = await collect(readContainerLog(file, k8sFileCodec, { ...all, follow: true, untilNs }));
    assert.deepEqual(got, ['stdout:x\n']);
  });
});

async function waitFor(test: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}
