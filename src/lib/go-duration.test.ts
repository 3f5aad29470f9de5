import assert from 'node:assert/strict';
import { it } from 'node:test';
import { formatGoDuration } from './go-duration.js';

it("prints durations as Go's time.Duration.String", () => {
  const cases: Array<[number | bigint, string]> = [
    [0, '0s'],
    [1, '1ns'],
    [1500, '1.5µs'],
    [500_000_000, '500ms'],
    [1_500_000, '1.5ms'],
    [30_000_000_000, '30s'],
    [1_500_000_000, '1.5s'],
    [90_000_000_000, '1m30s'],
    [60_000_000_000, '1m0s'],
    [3_600_000_000_000, '1h0m0s'],
    [3_723_000_000_001n, '1h2m3.000000001s'],
    [-2_000_000_000, '-2s'],
  ];
  for (const [ns, text] of cases) assert.equal(formatGoDuration(ns), text, String(ns));
});
