import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EngineError } from '../../errors.js';
import { DEFAULT_DETACH_KEYS, DetachScanner, parseDetachKeys } from './detach-keys.js';

describe('parseDetachKeys', () => {
  it('reads ctrl names and single characters as Docker does', () => {
    assert.deepEqual(parseDetachKeys(undefined), Buffer.from([16, 17]));
    assert.deepEqual(parseDetachKeys(''), DEFAULT_DETACH_KEYS);
    assert.deepEqual(parseDetachKeys('ctrl-p,ctrl-q'), Buffer.from([16, 17]));
    assert.deepEqual(parseDetachKeys('a,b'), Buffer.from('ab'));
    assert.deepEqual(parseDetachKeys('ctrl-@,ctrl-a,ctrl-z,ctrl-[,ctrl-\\,ctrl-],ctrl-^,ctrl-_'), Buffer.from([0, 1, 26, 27, 28, 29, 30, 31]));
    assert.deepEqual(parseDetachKeys('ctrl-x,x'), Buffer.from([24, 0x78]));
  });

  it("refuses what Docker 20.10 refuses, in its words", () => {
    for (const spec of ['ctrl-A', 'ab', 'ctrl-1', ',', 'ctrl-p,,', 'ctrl-', 'ctrl-pq', 'é']) {
      assert.throws(() => parseDetachKeys(spec), (err: unknown) => err instanceof EngineError && err.kind === 'invalidParameter' && err.message === `Invalid detach keys (${spec}) provided`, spec);
    }
  });
});

describe('DetachScanner', () => {
  const P = 16;
  const Q = 17;

  it('passes bytes through and detaches on the sequence, dropping what follows', () => {
    const s = new DetachScanner(DEFAULT_DETACH_KEYS);
    assert.deepEqual(s.push(Buffer.from('ls\n')), { data: Buffer.from('ls\n'), detached: false });
    assert.deepEqual(s.push(Buffer.from([0x61, P, Q, 0x62])), { data: Buffer.from('a'), detached: true });
  });

  it('holds back a possible start of the sequence across chunks', () => {
    const s = new DetachScanner(DEFAULT_DETACH_KEYS);
    assert.deepEqual(s.push(Buffer.from([0x61, P])), { data: Buffer.from('a'), detached: false });
    assert.deepEqual(s.push(Buffer.from([Q])), { data: Buffer.alloc(0), detached: true });
  });

  it('gives held bytes back when the sequence does not follow', () => {
    const s = new DetachScanner(DEFAULT_DETACH_KEYS);
    assert.deepEqual(s.push(Buffer.from([P])).data, Buffer.alloc(0));
    assert.deepEqual(s.push(Buffer.from('x')), { data: Buffer.from([P, 0x78]), detached: false });
    // ctrl-p twice: the first is typed, the second may start the sequence
    assert.deepEqual(s.push(Buffer.from([P, P])).data, Buffer.from([P]));
    assert.deepEqual(s.push(Buffer.from([Q])), { data: Buffer.alloc(0), detached: true });
  });

  it('finds overlapping sequences', () => {
    const s = new DetachScanner(Buffer.from('aab'));
    assert.deepEqual(s.push(Buffer.from('aaab')), { data: Buffer.from('a'), detached: true });
    const t = new DetachScanner(Buffer.from('aab'));
    assert.deepEqual(t.push(Buffer.from('aa')).data, Buffer.alloc(0));
    assert.deepEqual(t.push(Buffer.from('ac')), { data: Buffer.from('aaac'), detached: false });
  });

  it('flushes held bytes at the end of input', () => {
    const s = new DetachScanner(DEFAULT_DETACH_KEYS);
    s.push(Buffer.from([0x61, P]));
    assert.deepEqual(s.flush(), Buffer.from([P]));
    assert.deepEqual(s.flush(), Buffer.alloc(0));
  });

  it('detaches on a one-key sequence', () => {
    const s = new DetachScanner(parseDetachKeys('ctrl-x'));
    assert.deepEqual(s.push(Buffer.from([0x61, 24])), { data: Buffer.from('a'), detached: true });
  });
});
