import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ExitWaitTimeoutError, readExitFile, removeExitFiles, waitForExitFile, type ExitFileLocation } from './exit-files.js';
import { nowNanos } from '../lib/timestamp.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'berth-exit-files-'));
after(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
function location(): ExitFileLocation {
  const dir = path.join(root, String(n++));
  mkdirSync(path.join(dir, 'exits'), { recursive: true });
  mkdirSync(path.join(dir, 'persist'));
  return { exitDir: path.join(dir, 'exits'), containerId: 'c0ffee', persistDir: path.join(dir, 'persist') };
}

// as conmon writes it: a temporary file beside the target, then a rename
function writeLikeConmon(dir: string, name: string, content: string): void {
  const tmp = path.join(dir, `${name}.AB12CD`);
  writeFileSync(tmp, content);
  renameSync(tmp, path.join(dir, name));
}

describe('exit files', () => {
  it('reads nothing before the container exits', async () => {
    assert.equal(await readExitFile(location()), undefined);
  });

  it('reads the code and the mtime as the finish time', async () => {
    const loc = location();
    const before = nowNanos();
    writeLikeConmon(loc.exitDir, loc.containerId, '137');
    const record = await readExitFile(loc);
    assert.equal(record?.exitCode, 137);
    assert.equal(record?.oomKilled, false);
    // the file system's clock may lag the process's by a tick
    assert.ok(record!.finishedAtNs >= before - 20_000_000n, `${record?.finishedAtNs} before ${before}`);
  });

  it('falls back to the persist directory and sees an OOM mark', async () => {
    const loc = location();
    writeLikeConmon(loc.persistDir!, 'exit', '137');
    writeFileSync(path.join(loc.persistDir!, 'oom'), '');
    assert.deepEqual({ ...(await readExitFile(loc)), finishedAtNs: 0n }, { exitCode: 137, oomKilled: true, finishedAtNs: 0n });
  });

  it('refuses a file that holds no number', async () => {
    const loc = location();
    writeFileSync(path.join(loc.exitDir, loc.containerId), 'garbage');
    await assert.rejects(readExitFile(loc), /not an exit code/);
  });

  it('waits for a file written after the watch is armed', async () => {
    const loc = location();
    const waiting = waitForExitFile(loc, { timeoutMs: 5000 });
    setTimeout(() => {
      writeLikeConmon(loc.exitDir, 'someone-else', '1');
      writeLikeConmon(loc.exitDir, loc.containerId, '3');
    }, 50);
    assert.equal((await waiting).exitCode, 3);
  });

  it('finds a file already there', async () => {
    const loc = location();
    writeLikeConmon(loc.exitDir, loc.containerId, '0');
    assert.equal((await waitForExitFile(loc, { timeoutMs: 1000 })).exitCode, 0);
  });

  it('times out, and stops on abort', async () => {
    const loc = location();
    await assert.rejects(waitForExitFile(loc, { timeoutMs: 50 }), ExitWaitTimeoutError);
    const ac = new AbortController();
    const waiting = waitForExitFile(loc, { signal: ac.signal });
    ac.abort(new Error('gone'));
    await assert.rejects(waiting, /gone/);
    await assert.rejects(waitForExitFile(loc, { signal: AbortSignal.abort(new Error('already')) }), /already/);
  });

  it('removes them all', async () => {
    const loc = location();
    writeLikeConmon(loc.exitDir, loc.containerId, '1');
    writeLikeConmon(loc.persistDir!, 'exit', '1');
    writeFileSync(path.join(loc.persistDir!, 'oom'), '');
    await removeExitFiles(loc);
    assert.equal(await readExitFile(loc), undefined);
    await removeExitFiles(loc);
  });
});
