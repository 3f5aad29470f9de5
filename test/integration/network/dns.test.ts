// The embedded DNS server as containers use it: on a user-defined network two containers find each
// other by name, network alias, NAME.NETWORK and short ID (nslookup, ping, wget of an httpd), an
// address has its PTR, AAAA of an IPv4-only name is an empty NOERROR (a raw query from inside the
// container's namespace), and a name berth does not know is forwarded, SERVFAIL when no upstream
// answers, berthd living on. On the default bridge names are not resolved. berth's server listens
// on the network's gateway (Docker's on 127.0.0.11 inside each container): resolv.conf names it.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Berthd } from '../../helpers/berthd.js';
import { startWithBusybox, teardown } from '../../helpers/containers.js';
import { addressOn, containerNetns, dnsQuery, httpd, runDetached, sh, untilServed } from '../../helpers/network-probes.js';

/** an upstream no route leads to from berthd's namespace (TEST-NET-1) */
const UNREACHABLE_UPSTREAM = '192.0.2.53';

describe('embedded DNS on a user-defined network', () => {
  let d: Berthd;
  let webId: string;
  let clientId: string;
  let webIp: string;
  let gateway: string;

  before(async () => {
    d = await startWithBusybox({ config: { dns: [UNREACHABLE_UPSTREAM] } });
    assert.equal((await d.docker(['network', 'create', 'dnsnet'])).code, 0);
    webId = await runDetached(d, ['--name', 'web', '--network', 'dnsnet', '--network-alias', 'www', 'busybox', ...httpd('served-by-web')]);
    clientId = await runDetached(d, ['--name', 'client', '--network', 'dnsnet', 'busybox', 'sleep', '600']);
    webIp = await addressOn(d, 'web', 'dnsnet');
    gateway = (await d.docker(['network', 'inspect', '-f', '{{(index .IPAM.Config 0).Gateway}}', 'dnsnet'])).stdout.trim();
    await untilServed(d, 'client', `http://${webIp}/`, 'served-by-web');
  });
  after(async () => {
    await teardown(d);
  });

  it("names the network's gateway as the nameserver", async () => {
    const conf = await sh(d, 'client', 'cat /etc/resolv.conf');
    assert.match(conf.stdout, new RegExp(`^nameserver ${gateway.replace(/\./g, '\\.')}$`, 'm'));
  });

  for (const how of ['name', 'alias', 'NAME.NETWORK', 'short ID'] as const) {
    it(`finds the other container by ${how}: nslookup, ping and wget`, async () => {
      const name = { name: 'web', alias: 'www', 'NAME.NETWORK': 'web.dnsnet', 'short ID': webId.slice(0, 12) }[how];
      const lookup = await sh(d, 'client', `nslookup ${name}`);
      assert.equal(lookup.code, 0, lookup.stdout + lookup.stderr);
      assert.match(lookup.stdout, new RegExp(`Name:\\s+${name}\\nAddress: ${webIp.replace(/\./g, '\\.')}\\n`));
      const ping = await sh(d, 'client', `ping -c1 -W2 ${name}`);
      assert.equal(ping.code, 0, ping.stdout + ping.stderr);
      assert.match(ping.stdout, new RegExp(`^PING ${name} \\(${webIp.replace(/\./g, '\\.')}\\)`));
      const got = await sh(d, 'client', `wget -qO- http://${name}/`);
      assert.equal(got.stdout.trim(), 'served-by-web', got.stderr);
    });
  }

  it('answers PTR for a container address with name.network', async () => {
    const lookup = await sh(d, 'client', `nslookup ${webIp}`);
    assert.equal(lookup.code, 0, lookup.stdout + lookup.stderr);
    const reversed = webIp.split('.').reverse().join('.');
    assert.match(lookup.stdout, new RegExp(`${reversed.replace(/\./g, '\\.')}\\.in-addr\\.arpa\\s+name = web\\.dnsnet\\n`));
  });

  it('answers AAAA of an IPv4-only name with an empty NOERROR, and A with the address', () => {
    const netns = containerNetns(path.join(d.dir, 'exec'), clientId);
    const aaaa = dnsQuery(netns, gateway, 'web', 'AAAA');
    assert.equal(aaaa.rcode, 'NOERROR');
    assert.deepEqual(aaaa.answers, []);
    const a = dnsQuery(netns, gateway, 'web', 'A');
    assert.equal(a.rcode, 'NOERROR');
    assert.deepEqual(a.answers?.map((r) => [r.type, (r as { data: string }).data]), [['A', webIp]]);
  });

  it('forwards a name it does not know; with no upstream reachable, answers SERVFAIL and berthd lives on', async () => {
    const netns = containerNetns(path.join(d.dir, 'exec'), clientId);
    // berthd's namespace has no route to the upstream: the forwarder's connect fails (ENETUNREACH)
    const reply = dnsQuery(netns, gateway, 'nothing-here.example', 'A');
    assert.equal(reply.rcode, 'SERVFAIL');
    const ping = await sh(d, 'client', 'ping -c1 -W1 nothing-here.example');
    assert.notEqual(ping.code, 0);
    assert.match(ping.stderr, /bad address 'nothing-here\.example'/);
    assert.equal(d.proc.exitCode, null, d.log);
    assert.equal((await d.request('GET', '/_ping')).status, 200);
    // and names of ours are still answered
    assert.equal((await sh(d, 'client', 'wget -qO- http://web/')).stdout.trim(), 'served-by-web');
  });
});

describe('names on the default bridge', () => {
  let d: Berthd;
  before(async () => {
    d = await startWithBusybox({ config: { dns: [UNREACHABLE_UPSTREAM] } });
  });
  after(async () => {
    await teardown(d);
  });

  it('are not resolved: containers reach each other by address only', async () => {
    await runDetached(d, ['--name', 'plain-web', 'busybox', ...httpd('plain')]);
    // a nameserver of its own that no route leads to: a lookup fails at once rather than waiting for the host's
    await runDetached(d, ['--name', 'plain-client', '--dns', UNREACHABLE_UPSTREAM, 'busybox', 'sleep', '600']);
    const ip = await addressOn(d, 'plain-web', 'bridge');
    await untilServed(d, 'plain-client', `http://${ip}/`, 'plain');
    const conf = await sh(d, 'plain-client', 'cat /etc/resolv.conf');
    assert.equal(conf.stdout, `nameserver ${UNREACHABLE_UPSTREAM}\n`);
    const ping = await sh(d, 'plain-client', 'ping -c1 -W1 plain-web');
    assert.notEqual(ping.code, 0);
    assert.match(ping.stderr, /bad address 'plain-web'/);
    const hosts = await sh(d, 'plain-client', 'cat /etc/hosts');
    assert.doesNotMatch(hosts.stdout, /plain-web/);
  });

  it("takes the daemon's dns setting as its nameservers, as dockerd's daemon.json dns", async () => {
    await runDetached(d, ['--name', 'daemon-dns', 'busybox', 'sleep', '600']);
    const conf = await sh(d, 'daemon-dns', 'cat /etc/resolv.conf');
    assert.equal(conf.stdout, `nameserver ${UNREACHABLE_UPSTREAM}\n`);
  });
});
