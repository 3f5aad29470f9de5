// JSON text for values that hold bigints (counters past 2^53), written as plain JSON numbers.

const MARK = '\u0001';
const marked = /"\\u0001(-?\d+)\\u0001"/g;

export function stringifyWithBigInts(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${MARK}${v}${MARK}` : v)).replace(marked, '$1');
}
