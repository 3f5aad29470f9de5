// The network modes that are no network: `--network host` is berthd's own namespace (its links
// and addresses, the host's hostname, a server in it reached on 127.0.0.1 from the host's side),
// `--network none` has loopback only, and `--network container:X` shares X's interfaces, address,
// loopback, hostname and /etc files, as the reference engine (dockerd 20.10) shares them.
import assert from 'node:assert/strict';
import os from 'node:os';
import { after, before, describe, it } from 'node:test';
import type { Berthd } from '../../helpers/berthd.js';
import { startWithBusybox, teardown } from '../../helpers/containers.js';
import { addHostAddress, addressOn, httpd, runDetached, sh, wgetFromHost } from '../../helpers/network-probes.js';
import { until } from '../../helpers/until.js';

const HOST = '10.123.0.1';

/** `ip -o -4 addr` as `name address/prefix` lines. */
function ipv4Lines(out: string): string[] {
  return out
    .trim()
    .split('\n')
    .map((l) => /^\d+:\s+(\S+)\s+inet (\S+)/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => `${m[1]} ${m[2]}`);
}

describe('network modes', () => {
  let d: Berthd;
  before(async () => {
    d = await startWithBusybox();
    addHostAddress(d.netns!, `${HOST}/24`);
  });
  after(async () => {
    await teardown(d);
  });

  it("host: berthd's namespace's interfaces and the host's hostname", async () => {
    const r = await d.docker(['run', '--rm', '--network', 'host', 'busybox', 'sh', '-c', 'hostname; ip -o -4 addr']);
    assert.equal(r.code, 0, r.stderr);
    const [hostname, ...addresses] = r.stdout.trim().split('\n');
    assert.equal(hostname, os.hostname());
    assert.ok(ipv4Lines(addresses.join('\n')).includes(`hostif0 ${HOST}/24`), r.stdout);
    const links = await d.docker(['run', '--rm', '--network', 'host', 'busybox', 'cat', '/sys/class/net/hostif0/operstate']);
    assert.equal(links.code, 0, links.stderr);
  });

  it("host: a server in the container is the host's, on 127.0.0.1 and the host address", async () => {
    await runDetached(d, ['--name', 'on-host', '--network', 'host', 'busybox', 'sh', '-c', 'mkdir -p /www && echo on-host > /www/index.html && exec httpd -f -p 8088 -h /www']);
    await until('the server on the host', () => wgetFromHost(d.netns!, 'http://127.0.0.1:8088/'), (v) => v === 'on-host');
    assert.equal(wgetFromHost(d.netns!, `http://${HOST}:8088/`), 'on-host');
    assert.equal((await d.docker(['rm', '-f', 'on-host'])).code, 0);
  });

  it('none: loopback only', async () => {
    const r = await d.docker(['run', '--rm', '--network', 'none', 'busybox', 'sh', '-c', 'ls /sys/class/net; ip -o -4 addr']);
    assert.equal(r.code, 0, r.stderr);
    const [names, ...addresses] = r.stdout.trim().split('\n');
    assert.equal(names, 'lo');
    assert.deepEqual(ipv4Lines(addresses.join('\n')), ['lo 127.0.0.1/8']);
  });

  describe('container:X', () => {
    before(async () => {
      await runDetached(d, ['--name', 'xc', '--hostname', 'x-host', 'busybox', ...httpd('served-by-x')]);
    });

    it("shares X's interfaces and address", async () => {
      const ip = await addressOn(d, 'xc', 'bridge');
      const own = (await sh(d, 'xc', 'ip -o -4 addr')).stdout;
      const r = await d.docker(['run', '--rm', '--network', 'container:xc', 'busybox', 'ip', '-o', '-4', 'addr']);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(ipv4Lines(r.stdout), ipv4Lines(own));
      assert.ok(ipv4Lines(r.stdout).some((l) => l.startsWith(`eth0 ${ip}/`)), r.stdout);
    });

    it("reaches X's server on its own loopback", async () => {
      await runDetached(d, ['--name', 'joiner', '--network', 'container:xc', 'busybox', 'sleep', '600']);
      await until("x's server from the joiner", async () => (await sh(d, 'joiner', 'wget -qO- http://127.0.0.1/')).stdout.trim(), (v) => v === 'served-by-x');
    });

    it("has X's hostname and /etc files", async () => {
      const r = await d.docker(['run', '--rm', '--network', 'container:xc', 'busybox', 'sh', '-c', 'hostname; cat /etc/hostname /etc/hosts /etc/resolv.conf']);
      assert.equal(r.code, 0, r.stderr);
      const own = await sh(d, 'xc', 'hostname; cat /etc/hostname /etc/hosts /etc/resolv.conf');
      assert.equal(r.stdout, own.stdout);
      assert.match(r.stdout, /^x-host\n/);
    });
  });
});
