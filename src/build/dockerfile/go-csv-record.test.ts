import assert from 'node:assert/strict';
import { it } from 'node:test';
import { readCsvRecord } from './go-csv-record.js';

it("reads one record as Go's encoding/csv does", () => {
  const cases: Array<[string, string[]]> = [
    ['a', ['a']],
    ['a,b', ['a', 'b']],
    ['a,', ['a', '']],
    [',', ['', '']],
    ['"a,b",c', ['a,b', 'c']],
    ['"a""b"', ['a"b']],
    ['""', ['']],
    ['a\r', ['a']],
    ['é,"ü"', ['é', 'ü']],
  ];
  for (const [text, want] of cases) assert.deepEqual(readCsvRecord(text), want, text);
});

it("fails with Go's messages, columns in bytes", () => {
  const cases: Array<[string, string]> = [
    ['', 'EOF'],
    ['\r', 'EOF'],
    ['a"b', 'parse error on line 1, column 2: bare " in non-quoted-field'],
    ['é,a"', 'parse error on line 1, column 5: bare " in non-quoted-field'],
    ['"a', 'parse error on line 1, column 3: extraneous or missing " in quoted-field'],
    ['"a"b', 'parse error on line 1, column 3: extraneous or missing " in quoted-field'],
    ['x,"', 'parse error on line 1, column 4: extraneous or missing " in quoted-field'],
  ];
  for (const [text, message] of cases) assert.throws(() => readCsvRecord(text), { message }, text);
});
