import assert from 'node:assert/strict';
import { it } from 'node:test';
import { goQuote } from './go-quote.js';

it("quotes as Go's strconv.Quote", () => {
  const cases: Array<[string, string]> = [
    ['abc', '"abc"'],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ['\t\n\x00\x7f', '"\\t\\n\\x00\\x7f"'],
    ['héllo ☃', '"héllo ☃"'],
    ['\u00a0\u200b', '"\\u00a0\\u200b"'],
    ['\u{1f600}', '"😀"'],
    ['\u{e0001}', '"\\U000e0001"'],
  ];
  for (const [s, want] of cases) assert.equal(goQuote(s), want, s);
});
