// Go's time.ParseDuration, with its error messages ("time: invalid duration \"x\""), for
// HEALTHCHECK's --interval, --timeout and --start-period.

const UNIT_NS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  'µs': 1_000n, // U+00B5
  'μs': 1_000n, // U+03BC
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const MAX_NS = 1n << 63n;

/** nanoseconds; throws Error with Go's message */
export function parseGoDuration(text: string): number {
  const invalid = () => new Error(`time: invalid duration ${timeQuote(text)}`);
  let s = text;
  let negative = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    negative = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw invalid();
  let total = 0n;
  while (s !== '') {
    if (!/^[0-9.]/.test(s)) throw invalid();
    const [, whole, fraction, rest] = /^([0-9]*)(?:\.([0-9]*))?(.*)$/s.exec(s) as RegExpExecArray;
    if (whole === '' && !fraction) throw invalid(); // ".s" has no digits
    const unitText = /^[^0-9.]*/.exec(rest)?.[0] ?? '';
    if (unitText === '') throw new Error(`time: missing unit in duration ${timeQuote(text)}`);
    const unit = UNIT_NS[unitText];
    if (unit === undefined) throw new Error(`time: unknown unit ${timeQuote(unitText)} in duration ${timeQuote(text)}`);
    s = rest.slice(unitText.length);
    const v = BigInt(whole || '0');
    if (v > MAX_NS / unit) throw invalid();
    let ns = v * unit;
    if (fraction) {
      const [f, scale] = leadingFraction(fraction);
      // float64 arithmetic, as Go's
      if (f > 0n) ns += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (ns > MAX_NS) throw invalid();
    }
    total += ns;
    if (total > MAX_NS) throw invalid();
  }
  if (negative) return -Number(total);
  if (total > MAX_NS - 1n) throw invalid();
  return Number(total);
}

// the fraction's digits as an integer and its scale, digits past uint64's reach ignored
function leadingFraction(digits: string): [bigint, number] {
  let x = 0n;
  let scale = 1;
  for (const c of digits) {
    if (x > (MAX_NS - 1n) / 10n) break;
    const y = x * 10n + BigInt(c);
    if (y > MAX_NS) break;
    x = y;
    scale *= 10;
  }
  return [x, scale];
}

// time's own quoting: non-ASCII and control characters as \x bytes
function timeQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    if (ch < ' ' || ch > '\x7f') {
      for (const b of Buffer.from(ch)) out += `\\x${b.toString(16).padStart(2, '0')}`;
    } else out += ch === '"' || ch === '\\' ? `\\${ch}` : ch;
  }
  return `${out}"`;
}
