import assert from 'node:assert/strict';
import { it } from 'node:test';
import { parseGoDuration } from './parse-go-duration.js';

it("parses as Go's time.ParseDuration", () => {
  const cases: Array<[string, number]> = [
    ['0', 0],
    ['-0', 0],
    ['5s', 5e9],
    ['1h', 3.6e12],
    ['1.5s', 1.5e9],
    ['1.s', 1e9],
    ['.5ms', 5e5],
    ['100us', 1e5],
    ['100µs', 1e5],
    ['100μs', 1e5],
    ['1h2m3s4ms5us6ns', 3_723_004_005_006],
    ['+2m', 1.2e11],
    ['-1s', -1e9],
    ['0.000000001s', 1],
  ];
  for (const [text, ns] of cases) assert.equal(parseGoDuration(text), ns, text);
});

it("refuses with Go's messages", () => {
  const cases: Array<[string, string]> = [
    ['', 'time: invalid duration ""'],
    ['x', 'time: invalid duration "x"'],
    ['.s', 'time: invalid duration ".s"'],
    ['1', 'time: missing unit in duration "1"'],
    ['1.', 'time: missing unit in duration "1."'],
    ['1x', 'time: unknown unit "x" in duration "1x"'],
    ['1sx', 'time: unknown unit "sx" in duration "1sx"'],
    ['3é', 'time: unknown unit "\\xc3\\xa9" in duration "3\\xc3\\xa9"'],
    ['9999999999999999999h', 'time: invalid duration "9999999999999999999h"'],
    ['3000000h', 'time: invalid duration "3000000h"'],
    ['1s s', 'time: unknown unit "s s" in duration "1s s"'],
  ];
  for (const [text, message] of cases) assert.throws(() => parseGoDuration(text), { message }, text);
});
