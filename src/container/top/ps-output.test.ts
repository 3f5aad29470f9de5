import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parsePsOutput, psPidsArg, splitPsArgs, validatePsArgs } from './ps-output.js';

test('parsePsOutput keeps the container rows and joins a command with spaces into the last column', () => {
  const out = ['UID PID PPID C STIME TTY TIME CMD', 'root 10 1 0 14:54 ? 00:00:00 sleep 200000', 'root 11 2 0 14:54 ? 00:00:00 other', ''].join('\n');
  assert.deepEqual(parsePsOutput(out, [10]), {
    Titles: ['UID', 'PID', 'PPID', 'C', 'STIME', 'TTY', 'TIME', 'CMD'],
    Processes: [['root', '10', '1', '0', '14:54', '?', '00:00:00', 'sleep 200000']],
  });
});

test('parsePsOutput keeps thread rows ("-" as PID) after a kept row only', () => {
  const out = ['PID LWP CMD', '10 - sleep', '- 10 -', '11 - other', '- 11 -'].join('\n');
  assert.deepEqual(parsePsOutput(out, [10]).Processes, [
    ['10', '-', 'sleep'],
    ['-', '10', '-'],
  ]);
});

test('parsePsOutput refuses output without a PID column, and a PID that is not a number', () => {
  assert.throws(() => parsePsOutput('COMMAND\nsleep\n', [1]), { kind: 'system', message: "Couldn't find PID field in ps output" });
  assert.throws(() => parsePsOutput('PID\nx1\n', [1]), { kind: 'system', message: `Unexpected pid 'x1': strconv.Atoi: parsing "x1": invalid syntax` });
});

test('validatePsArgs refuses renaming a column to PID, as dockerd', () => {
  assert.throws(() => validatePsArgs('-o user=PID'), { kind: 'system', message: 'specifying "user=PID" is not allowed' });
  assert.throws(() => validatePsArgs('-o pid,user=PIDX'), { kind: 'system', message: 'specifying "pid,user=PIDX" is not allowed' });
  validatePsArgs('-o pid=PID,comm');
  validatePsArgs('-ef');
});

test('ps arguments split on single spaces, and the pids go as -q', () => {
  assert.deepEqual(splitPsArgs('-o pid  -o comm'), ['-o', 'pid', '', '-o', 'comm']);
  assert.equal(psPidsArg([1, 22, 333]), '-q1,22,333');
});
