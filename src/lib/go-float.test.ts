import assert from 'node:assert/strict';
import { it } from 'node:test';
import { formatGoFloat } from './go-float.js';

it("formats as Go's %g", () => {
  const cases: Array<[number, string]> = [
    [1e-6, '1e-06'],
    [-1e-9, '-1e-09'],
    [1.5e-6, '1.5e-06'],
    [0.001, '0.001'],
    [0.0001, '0.0001'],
    [0.5, '0.5'],
    [123456, '123456'],
    [1234567, '1.234567e+06'],
    [100000, '100000'],
    [1000000, '1e+06'],
    [12.5, '12.5'],
    [-3, '-3'],
    [1e21, '1e+21'],
    [1.5e-100, '1.5e-100'],
    [0, '0'],
  ];
  for (const [x, want] of cases) assert.equal(formatGoFloat(x), want, String(x));
});
