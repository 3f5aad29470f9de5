import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { rfc3339Time, SEVERITY_ERR, SEVERITY_INFO, stampTime, syslogMessage, type SyslogHeader } from './syslog-format.js';

// the zone is the sender's; these tests pick theirs (Node reads TZ again when it changes)
const zone = process.env.TZ;
process.env.TZ = 'UTC';
after(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

/** 2026-11-06T02:03:04.000567Z, in microseconds */
const NOW_US = Date.UTC(2026, 10, 6, 2, 3, 4) * 1000 + 567;

const header = (h: Partial<SyslogHeader>): SyslogHeader => ({ format: '', facility: 3 << 3, hostname: 'vm', tag: '9f412e6c8b7e', pid: 26128, octetCounted: false, ...h });
const text = (b: Buffer) => b.toString('latin1');

describe('syslog messages as srslog formats them for dockerd', () => {
  it('"" (UnixFormatter): <PRI>Mmm _d hh:mm:ss tag[pid]: msg and a newline; daemon.info and daemon.err', () => {
    // the reference's bytes: b'<30>Nov 26 02:33:26 9f412e6c8b7e[26128]: hello\n'
    assert.equal(text(syslogMessage(header({}), SEVERITY_INFO, Buffer.from('hello'), NOW_US)), '<30>Nov  6 02:03:04 9f412e6c8b7e[26128]: hello\n');
    assert.equal(text(syslogMessage(header({}), SEVERITY_ERR, Buffer.from('err'), NOW_US)), '<27>Nov  6 02:03:04 9f412e6c8b7e[26128]: err\n');
  });

  it('rfc3164 adds the hostname', () => {
    assert.equal(text(syslogMessage(header({ format: 'rfc3164', tag: 'tagged/busybox|docker' }), SEVERITY_INFO, Buffer.from('out1'), NOW_US)), '<30>Nov  6 02:03:04 vm tagged/busybox|docker[26128]: out1\n');
  });

  it('rfc5424 and rfc5424micro: the tag as app name and message id, the facility in the priority', () => {
    const local3 = 19 << 3;
    assert.equal(text(syslogMessage(header({ format: 'rfc5424', facility: local3 }), SEVERITY_INFO, Buffer.from('out1'), NOW_US)), '<158>1 2026-11-06T02:03:04Z vm 9f412e6c8b7e 26128 9f412e6c8b7e - out1\n');
    assert.equal(text(syslogMessage(header({ format: 'rfc5424micro', facility: 7 << 3 }), SEVERITY_ERR, Buffer.from('err1'), NOW_US)), '<59>1 2026-11-06T02:03:04.000567Z vm 9f412e6c8b7e 26128 9f412e6c8b7e - err1\n');
  });

  it('over tcp+tls, rfc5424 is framed with its length, newline included', () => {
    const framed = text(syslogMessage(header({ format: 'rfc5424', octetCounted: true, tag: '010bedb7c027' }), SEVERITY_ERR, Buffer.from('err1'), NOW_US));
    assert.equal(framed, '69 <27>1 2026-11-06T02:03:04Z vm 010bedb7c027 26128 010bedb7c027 - err1\n');
  });

  it("keeps the content's bytes as they are, a carriage return included", () => {
    const msg = syslogMessage(header({}), SEVERITY_INFO, Buffer.from([0x78, 0x0d, 0xff]), NOW_US);
    assert.deepEqual([...msg.subarray(-4)], [0x78, 0x0d, 0xff, 0x0a]);
  });

  it("times are local: Go's Z07:00 zone, and time.Stamp's space-padded day", () => {
    process.env.TZ = 'Asia/Kolkata';
    try {
      assert.equal(rfc3339Time(NOW_US, false), '2026-11-06T07:33:04+05:30');
      assert.equal(rfc3339Time(NOW_US, true), '2026-11-06T07:33:04.000567+05:30');
      assert.equal(stampTime(NOW_US), 'Nov  6 07:33:04');
      process.env.TZ = 'America/New_York';
      assert.equal(rfc3339Time(NOW_US, false), '2026-11-05T21:03:04-05:00');
    } finally {
      process.env.TZ = 'UTC';
    }
    assert.equal(stampTime(Date.UTC(2026, 0, 16, 23, 59, 59) * 1000), 'Jan 16 23:59:59');
  });
});
