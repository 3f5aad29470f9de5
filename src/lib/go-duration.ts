// Durations printed as Go's time.Duration.String prints them ("30s", "1m30s", "500ms", "1.5µs"),
// for messages dockerd words with a %v of a duration.

const NS_PER_US = 1_000n;
const NS_PER_MS = 1_000_000n;
const NS_PER_S = 1_000_000_000n;

/** nanoseconds in Go's notation */
export function formatGoDuration(ns: number | bigint): string {
  const n = BigInt(ns);
  if (n === 0n) return '0s';
  const sign = n < 0n ? '-' : '';
  const abs = n < 0n ? -n : n;
  if (abs < NS_PER_US) return `${sign}${abs}ns`;
  if (abs < NS_PER_MS) return `${sign}${decimal(abs, NS_PER_US)}µs`;
  if (abs < NS_PER_S) return `${sign}${decimal(abs, NS_PER_MS)}ms`;
  const hours = abs / (3600n * NS_PER_S);
  const minutes = (abs / (60n * NS_PER_S)) % 60n;
  const seconds = decimal(abs % (60n * NS_PER_S), NS_PER_S);
  return `${sign}${hours > 0n ? `${hours}h` : ''}${hours > 0n || minutes > 0n ? `${minutes}m` : ''}${seconds}s`;
}

/** value / unit with the fraction's trailing zeros dropped */
function decimal(value: bigint, unit: bigint): string {
  const whole = value / unit;
  const fraction = value % unit;
  if (fraction === 0n) return String(whole);
  const digits = String(unit).length - 1;
  return `${whole}.${String(fraction).padStart(digits, '0').replace(/0+$/, '')}`;
}
