import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { EngineError } from '../errors.js';
import { formatRfc3339Nano, nowNanos, parseTimestampNanos } from './timestamp.js';

describe('parseTimestampNanos', () => {
  it('is undefined for an absent or empty value', () => {
    assert.equal(parseTimestampNanos('since', null), undefined);
    assert.equal(parseTimestampNanos('since', ''), undefined);
  });

  // seconds[.fraction] → nanoseconds, as dockerd's api/types/time parseTimestamp and time.Unix(s, n)
  const valid: Array<[string, bigint]> = [
    ['0', 0n],
    ['1', 1_000_000_000n],
    ['1.5', 1_500_000_000n],
    ['1.05', 1_050_000_000n],
    ['1.000000001', 1_000_000_001n],
    ['1.100', 1_100_000_000n],
    ['1600000000.123456789', 1_600_000_000_123_456_789n],
    ['1795349934.013676000', 1_795_349_934_013_676_000n],
    // beyond nanoseconds the fraction is cut, not rounded (dockerd: int64(n * 10^(9-len)))
    ['1.1234567899', 1_123_456_789n],
    ['1.0000000009', 1_000_000_000n],
    ['007', 7_000_000_000n],
    // a sign on the seconds only; the fraction is added, as time.Unix(-1, 500000000)
    ['-1', -1_000_000_000n],
    ['-1.5', -500_000_000n],
    ['-10', -10_000_000_000n],
  ];
  for (const [text, nanos] of valid) {
    it(`reads "${text}" as ${nanos} ns`, () => {
      assert.equal(parseTimestampNanos('since', text), nanos);
    });
  }

  it('keeps nanoseconds exact far beyond a double\'s precision', () => {
    const nanos = parseTimestampNanos('until', '9999999999.999999999');
    assert.equal(nanos, 9_999_999_999_999_999_999n);
    assert.notEqual(BigInt(Number(nanos)), nanos);
  });

  const invalid = ['abc', '1.', '.5', '1.5.5', '1e9', ' 1', '1 ', '0x10', '1,5', '1.-5', '--1', '1:00', '2020-01-01T00:00:00Z', '10m', 'Infinity', 'NaN', '١'];
  for (const text of invalid) {
    it(`refuses ${JSON.stringify(text)} as invalidParameter, naming the parameter and the value`, () => {
      assert.throws(
        () => parseTimestampNanos('until', text),
        (err: unknown) => {
          assert.ok(err instanceof EngineError);
          assert.equal(err.kind, 'invalidParameter');
          assert.ok(err.message.includes('until'), err.message);
          assert.ok(err.message.includes(`"${text}"`), err.message);
          return true;
        },
      );
    });
  }

  it('takes a leading "+" as dockerd does (strconv.ParseInt: GET /events?since=+1 is 200 there)', () => {
    assert.equal(parseTimestampNanos('since', '+1'), 1_000_000_000n);
    assert.equal(parseTimestampNanos('since', '+1.5'), 1_500_000_000n);
  });
});

describe('nowNanos', () => {
  it('is the wall clock in nanoseconds, at microsecond resolution', () => {
    const before = BigInt(Date.now()) * 1_000_000n;
    const now = nowNanos();
    const after = BigInt(Date.now()) * 1_000_000n;
    assert.equal(typeof now, 'bigint');
    assert.equal(now % 1000n, 0n);
    // performance.timeOrigin and Date.now() may differ by a fraction of a millisecond
    assert.ok(now >= before - 5_000_000n && now <= after + 5_000_000n, `${before} <= ${now} <= ${after}`);
  });

  it('does not go backwards', () => {
    let last = nowNanos();
    for (let i = 0; i < 1000; i++) {
      const n = nowNanos();
      assert.ok(n >= last);
      last = n;
    }
  });
});

describe('formatRfc3339Nano', () => {
  const savedTz = process.env.TZ;
  afterEach(() => {
    if (savedTz === undefined) delete process.env.TZ;
    else process.env.TZ = savedTz;
  });

  it('prints UTC with Z and every significant nanosecond digit', () => {
    process.env.TZ = 'UTC';
    assert.equal(formatRfc3339Nano(1_600_000_000_123_456_789n), '2020-09-13T12:26:40.123456789Z');
    assert.equal(formatRfc3339Nano(1_600_000_000_000_000_001n), '2020-09-13T12:26:40.000000001Z');
  });

  it('drops trailing zeros of the fraction, and the fraction of a whole second, as Go\'s RFC3339Nano', () => {
    process.env.TZ = 'UTC';
    assert.equal(formatRfc3339Nano(1_600_000_000_500_000_000n), '2020-09-13T12:26:40.5Z');
    assert.equal(formatRfc3339Nano(1_600_000_000_000_000_000n), '2020-09-13T12:26:40Z');
    assert.equal(formatRfc3339Nano(0n), '1970-01-01T00:00:00Z');
  });

  it('prints local time with the local offset', () => {
    process.env.TZ = 'Asia/Kolkata';
    assert.equal(formatRfc3339Nano(1_600_000_000_123_456_789n), '2020-09-13T17:56:40.123456789+05:30');
    process.env.TZ = 'America/New_York';
    assert.equal(formatRfc3339Nano(1_600_000_000_123_456_789n), '2020-09-13T08:26:40.123456789-04:00');
    assert.equal(formatRfc3339Nano(1_610_000_000_000_000_000n), '2021-01-07T01:13:20-05:00');
  });
});
