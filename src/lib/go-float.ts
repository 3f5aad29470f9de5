// Go's %g (and %v) of a float64, for the messages dockerd words with it ("invalid cpu value
// 1e-06"): the shortest digits that read back as the number, in exponent form when the exponent is
// below -4 or at least 6 ("1.5e+06"), with a signed exponent of two digits or more.

export function formatGoFloat(x: number): string {
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'NaN' : x > 0 ? '+Inf' : '-Inf';
  // toExponential() with no argument gives the shortest round-trip digits, as Go's shortest mode does
  const [mantissa, exponent] = x.toExponential().split('e');
  const exp = Number(exponent);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  const sign = x < 0 ? '-' : '';
  const digits = mantissa!.replace(/^-/, '').replace('.', '');
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  return sign + (digits.length > exp + 1 ? `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}` : digits.padEnd(exp + 1, '0'));
}
