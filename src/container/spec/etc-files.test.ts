import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { hostsContent, resolvConfContent, withoutLinkHosts, writeEtcFiles } from './etc-files.js';

const DEFAULT_HOSTS = '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\nfe00::0\tip6-localnet\nff00::0\tip6-mcastprefix\nff02::1\tip6-allnodes\nff02::2\tip6-allrouters\n';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('etc files', () => {
  it('writes the hosts Docker writes for a container on a network without addresses', () => {
    assert.equal(hostsContent({ hostname: 'abc' }), DEFAULT_HOSTS);
    assert.equal(hostsContent({ hostname: 'abc', extraHosts: ['foo:1.2.3.4', 'bar:::1'] }), `${DEFAULT_HOSTS}1.2.3.4\tfoo\n::1\tbar\n`);
  });

  it('names the hostname with the address, when there is one', () => {
    assert.equal(hostsContent({ hostname: 'myhost', domainname: 'example.org', ipAddress: '172.17.0.4' }), `${DEFAULT_HOSTS}172.17.0.4\tmyhost.example.org myhost\n`);
    assert.equal(hostsContent({ hostname: 'myhost', ipAddress: '172.17.0.4' }), `${DEFAULT_HOSTS}172.17.0.4\tmyhost\n`);
  });

  it('takes the lines of removed links out of a hosts file, and nothing else', () => {
    const hosts = hostsContent({ hostname: 'web', ipAddress: '172.17.0.5', extraHosts: ['db:10.0.0.9', 'db abc123 db1:172.17.0.3', 'cache 0123456789ab:172.17.0.4'] });
    assert.equal(withoutLinkHosts(hosts, ['db']), `${DEFAULT_HOSTS}10.0.0.9\tdb\n172.17.0.4\tcache 0123456789ab\n172.17.0.5\tweb\n`);
    assert.equal(withoutLinkHosts(hosts, []), hosts);
  });

  it("drops the host's localhost nameservers, and falls back on Google's", () => {
    const host = 'search lan\nnameserver 127.0.0.53\nnameserver 10.0.0.1\nnameserver ::1\noptions edns0\n';
    assert.equal(resolvConfContent(host), 'search lan\nnameserver 10.0.0.1\noptions edns0\n');
    assert.equal(
      resolvConfContent('nameserver 127.0.0.53\noptions edns0\n'),
      'options edns0\n\nnameserver 8.8.8.8\nnameserver 8.8.4.4\nnameserver 2001:4860:4860::8888\nnameserver 2001:4860:4860::8844',
    );
  });

  it('replaces only the kinds of lines Dns, DnsSearch and DnsOptions give', () => {
    const host = '# comment\nsearch lan\nnameserver 10.0.0.1\noptions edns0\n';
    assert.equal(resolvConfContent(host, { dns: ['8.8.8.8'], dnsSearch: ['example.com'], dnsOptions: ['ndots:2'] }), 'search example.com\nnameserver 8.8.8.8\noptions ndots:2\n');
    assert.equal(resolvConfContent(host, { dnsSearch: ['a', 'b'] }), 'search a b\nnameserver 10.0.0.1\noptions edns0\n');
    // with options given, localhost servers of the host stay, as in libnetwork
    assert.equal(resolvConfContent('nameserver 127.0.0.1\n', { dnsOptions: ['ndots:1'] }), 'nameserver 127.0.0.1\noptions ndots:1\n');
    assert.equal(resolvConfContent(host, { dnsSearch: ['.'] }), 'nameserver 10.0.0.1\noptions edns0\n');
  });

  it("writes the files and their mounts; host network copies the host's", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'berth-etc-'));
    dirs.push(dir);
    const hostHosts = path.join(dir, 'host-hosts');
    const hostResolv = path.join(dir, 'host-resolv');
    writeFileSync(hostHosts, '127.0.0.1 localhost\n127.0.0.1 vm\n');
    writeFileSync(hostResolv, 'nameserver 127.0.0.53\n');
    const paths = { hostHostsPath: hostHosts, hostResolvConfPath: hostResolv };

    const mounts = writeEtcFiles({ containerDir: dir, hostname: 'abc', ...paths }, { readonlyRootfs: true });
    assert.deepEqual(mounts.map((m) => [m.destination, m.source, m.options]), [
      ['/etc/resolv.conf', path.join(dir, 'resolv.conf'), ['rbind', 'ro', 'rprivate']],
      ['/etc/hostname', path.join(dir, 'hostname'), ['rbind', 'ro', 'rprivate']],
      ['/etc/hosts', path.join(dir, 'hosts'), ['rbind', 'ro', 'rprivate']],
    ]);
    assert.equal(readFileSync(path.join(dir, 'hostname'), 'utf8'), 'abc\n');
    assert.equal(readFileSync(path.join(dir, 'hosts'), 'utf8'), DEFAULT_HOSTS);
    assert.match(readFileSync(path.join(dir, 'resolv.conf'), 'utf8'), /^\nnameserver 8\.8\.8\.8/);

    writeEtcFiles({ containerDir: dir, hostname: 'vm', networkMode: 'host', ...paths });
    assert.equal(readFileSync(path.join(dir, 'hosts'), 'utf8'), '127.0.0.1 localhost\n127.0.0.1 vm\n');
    assert.equal(readFileSync(path.join(dir, 'resolv.conf'), 'utf8'), 'nameserver 127.0.0.53\n');
    // ExtraHosts and Dns make host network write its own, as dockerd does
    writeEtcFiles({ containerDir: dir, hostname: 'vm', networkMode: 'host', extraHosts: ['a:1.1.1.1'], dns: ['1.1.1.1'], ...paths });
    assert.equal(readFileSync(path.join(dir, 'hosts'), 'utf8'), `${DEFAULT_HOSTS}1.1.1.1\ta\n`);
    assert.equal(readFileSync(path.join(dir, 'resolv.conf'), 'utf8'), 'nameserver 1.1.1.1\n');
  });
});
