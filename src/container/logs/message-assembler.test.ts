import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LogMessage } from './log-codecs.js';
import { MAX_MESSAGE_BYTES, MessageAssembler } from './message-assembler.js';

const T = '2026-11-26T02:01:31.498591344+00:00';
const rec = (stream: string, tag: 'F' | 'P', text: string) => `${T} ${stream} ${tag} ${text}\n`;

function assemble(chunks: string[], end = true): LogMessage[] {
  const out: LogMessage[] = [];
  const a = new MessageAssembler((m) => out.push(m));
  for (const c of chunks) a.push(Buffer.from(c));
  if (end) a.end();
  return out;
}

describe('MessageAssembler', () => {
  it('makes a message of each line, joining the pieces conmon read it in, per stream', () => {
    const out = assemble([rec('stdout', 'P', 'hel') + rec('stderr', 'F', 'err') + rec('stdout', 'F', 'lo'), rec('stdout', 'F', '')]);
    assert.deepEqual(
      out.map((m) => [m.stream, m.line.toString(), m.partial]),
      [
        ['stderr', 'err', undefined],
        ['stdout', 'hello', undefined],
        ['stdout', '', undefined],
      ],
    );
  });

  it('joins a record cut between two reads of the pipe', () => {
    const whole = rec('stdout', 'F', 'across');
    const out = assemble([whole.slice(0, 20), whole.slice(20)]);
    assert.deepEqual(out.map((m) => m.line.toString()), ['across']);
  });

  it('cuts a line of 16 KiB or more into partial messages of 16 KiB with one id, the last marked', () => {
    const long = 'x'.repeat(MAX_MESSAGE_BYTES * 2 + 5);
    const out = assemble([rec('stdout', 'P', long.slice(0, 8000)), rec('stdout', 'P', long.slice(8000, 30000)), rec('stdout', 'F', long.slice(30000))]);
    assert.deepEqual(out.map((m) => m.line.length), [MAX_MESSAGE_BYTES, MAX_MESSAGE_BYTES, 5]);
    assert.deepEqual(out.map((m) => [m.partial?.ordinal, m.partial?.last]), [[1, false], [2, false], [3, true]]);
    assert.equal(new Set(out.map((m) => m.partial?.id)).size, 1);
    // exactly 16 KiB: a full partial message, then an empty last one (as dockerd's copier)
    const exact = assemble([rec('stdout', 'F', 'y'.repeat(MAX_MESSAGE_BYTES))]);
    assert.deepEqual(exact.map((m) => [m.line.length, m.partial?.last]), [[MAX_MESSAGE_BYTES, false], [0, true]]);
  });

  it('sends what waits for a newline at the end as a partial message, not marked last', () => {
    const out = assemble([rec('stdout', 'F', 'line') + rec('stdout', 'P', 'tail')]);
    assert.deepEqual(out.map((m) => [m.line.toString(), m.partial?.last]), [['line', undefined], ['tail', false]]);
    assert.deepEqual(assemble([rec('stdout', 'P', 'tail')], false), []);
  });
});
