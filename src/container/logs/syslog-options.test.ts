import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSyslogAddress, parseSyslogFacility, parseSyslogFormat, splitHostPort, syslogConfigOf, SyslogOptionError } from './syslog-options.js';

const fails = (message: string) => new SyslogOptionError(message);

describe("the syslog driver's options (dockerd 20.10's parseAddress, parseFacility, parseLogFormat)", () => {
  it('takes the transport URLs, adding port 514 to a host without one', () => {
    assert.deepEqual(parseSyslogAddress('udp://127.0.0.1:5514'), { network: 'udp', address: '127.0.0.1:5514' });
    assert.deepEqual(parseSyslogAddress('tcp://127.0.0.1'), { network: 'tcp', address: '127.0.0.1:514' });
    assert.deepEqual(parseSyslogAddress('tcp+tls://[::1]'), { network: 'tcp+tls', address: '[::1]:514' });
    assert.deepEqual(parseSyslogAddress('udp://'), { network: 'udp', address: ':514' });
    // accepted at create, refused by the dial at start
    assert.deepEqual(parseSyslogAddress('udp://127.0.0.1:99999'), { network: 'udp', address: '127.0.0.1:99999' });
    assert.deepEqual(parseSyslogAddress('unix:///'), { network: 'unix', address: '/' });
    assert.deepEqual(parseSyslogAddress(''), { network: 'local', address: '' });
  });

  it("refuses the others with the reference's messages", () => {
    assert.throws(() => parseSyslogAddress('foo://x'), fails('syslog-address should be in form proto://address, got foo://x'));
    assert.throws(() => parseSyslogAddress('127.0.0.1:514'), fails('syslog-address should be in form proto://address, got 127.0.0.1:514'));
    assert.throws(() => parseSyslogAddress('http://127.0.0.1'), fails('syslog-address should be in form proto://address, got http://127.0.0.1'));
    assert.throws(() => parseSyslogAddress('udp://[::1'), fails('parse "udp://[::1": missing \']\' in host'));
    assert.throws(() => parseSyslogAddress('udp://a:b:c'), fails('parse "udp://a:b:c": invalid port ":c" after host'));
    assert.throws(() => parseSyslogAddress('udp://a:b:1'), fails('address a:b:1: too many colons in address'));
    assert.throws(() => parseSyslogAddress('unix:///nonexistent/sock'), fails('stat /nonexistent/sock: no such file or directory'));
    assert.throws(() => parseSyslogAddress('unixgram:///nonexistent'), fails('stat /nonexistent: no such file or directory'));
  });

  it('facilities by name or number 0-23, daemon by default', () => {
    assert.equal(parseSyslogFacility(undefined), 3 << 3);
    assert.equal(parseSyslogFacility('local3'), 19 << 3);
    assert.equal(parseSyslogFacility('23'), 23 << 3);
    assert.equal(parseSyslogFacility('+7'), 7 << 3);
    for (const bad of ['24', 'bogus', '-1', 'Local3']) assert.throws(() => parseSyslogFacility(bad), fails('invalid syslog facility'));
  });

  it('formats', () => {
    for (const f of ['', 'rfc3164', 'rfc5424', 'rfc5424micro']) assert.equal(parseSyslogFormat(f), f);
    assert.throws(() => parseSyslogFormat('rfc9999'), fails('Invalid syslog format'));
  });

  it('TLS settings only for tcp+tls; skip-verify is set by its presence', () => {
    assert.equal(syslogConfigOf({ 'syslog-address': 'tcp://h', 'syslog-tls-ca-cert': '/x' }).tls, undefined);
    assert.deepEqual(syslogConfigOf({ 'syslog-address': 'tcp+tls://h', 'syslog-tls-skip-verify': 'false' }).tls, { caFile: undefined, certFile: undefined, keyFile: undefined, skipVerify: true });
  });

  it("net.SplitHostPort's answers", () => {
    assert.deepEqual(splitHostPort('[::1]:514'), { host: '::1', port: '514' });
    assert.equal(splitHostPort('[::1]'), 'missing port in address');
    assert.equal(splitHostPort('[::1]x:1'), 'missing port in address');
    assert.equal(splitHostPort('[::1]:1:2'), 'too many colons in address');
    assert.equal(splitHostPort('host'), 'missing port in address');
  });
});
