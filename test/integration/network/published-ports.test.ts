// Published ports, reached as users reach them: berthd's namespace plays the host (an address of
// its own, 10.123.0.1, besides 127.0.0.1) and runs busybox wget against `-p 8080:80`,
// `-p 127.0.0.1::80`, a range `-p 9000-9002:80` and `-P` with `--expose`; `docker port`, the Ports
// column of `docker ps` and NetworkSettings.Ports say what the reference engine (dockerd 20.10) says,
// but for its IPv6 lines (berth publishes IPv4 only) and the ephemeral ports (the kernel's pick).
// Hairpin: containers reach a published port through the host's address. A host port that is taken
// (by another container, or by a process of the host's) fails `docker run` with exit 125 and
// dockerd's words, and leaves nothing: no veth on the bridge, no namespace file, no DNAT chain.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Berthd } from '../../helpers/berthd.js';
import { inspectContainer, startWithBusybox, teardown } from '../../helpers/containers.js';
import { execIn, spawnIn } from '../../helpers/netns.js';
import { addHostAddress, bridgePorts, dnatChains, httpd, natRulesOf, netnsFiles, runDetached, sh, wgetFromHost } from '../../helpers/network-probes.js';
import { until } from '../../helpers/until.js';

const HOST = '10.123.0.1';
const DEFAULT_BRIDGE = 'berth0';

describe('published ports', () => {
  let d: Berthd;
  let netns: string;

  /** `docker port` of one container port: the host port. */
  async function hostPort(container: string, port: string): Promise<string> {
    const r = await d.docker(['port', container, port]);
    assert.equal(r.code, 0, r.stderr);
    const m = /^(?:0\.0\.0\.0|127\.0\.0\.1):(\d+)$/.exec(r.stdout.trim());
    assert.ok(m, r.stdout);
    return m[1];
  }

  before(async () => {
    d = await startWithBusybox();
    netns = d.netns!;
    addHostAddress(netns, `${HOST}/24`);
    await runDetached(d, ['--name', 'p8080', '-p', '8080:80', 'busybox', ...httpd('p8080')]);
    await runDetached(d, ['--name', 'ploop', '-p', '127.0.0.1::80', 'busybox', ...httpd('ploop')]);
    await runDetached(d, ['--name', 'prange', '-p', '9000-9002:80', 'busybox', ...httpd('prange')]);
    await runDetached(d, ['--name', 'pall', '-P', '--expose', '80', '--expose', '81', 'busybox', ...httpd('pall')]);
    await runDetached(d, ['--name', 'pexposed', '--expose', '5000', '-p', '8081:80', 'busybox', ...httpd('pexposed')]);
    await until('the servers to answer', () => [wgetFromHost(netns, 'http://127.0.0.1:8080/'), wgetFromHost(netns, 'http://127.0.0.1:8081/')], (v) => v[0] === 'p8080' && v[1] === 'pexposed');
  });
  after(async () => {
    await teardown(d);
  });

  it('answers on 127.0.0.1 and on the host address, from the host', async () => {
    for (const [port, text] of [['8080', 'p8080'], ['9000', 'prange'], ['8081', 'pexposed'], [await hostPort('pall', '80/tcp'), 'pall']]) {
      await until(`${text} on 127.0.0.1:${port}`, () => wgetFromHost(netns, `http://127.0.0.1:${port}/`), (v) => v === text);
      assert.equal(wgetFromHost(netns, `http://${HOST}:${port}/`), text, `${text} on ${HOST}:${port}`);
    }
    // bound to 127.0.0.1: not on the host's other addresses
    const loopbackOnly = await hostPort('ploop', '80/tcp');
    await until('ploop on 127.0.0.1', () => wgetFromHost(netns, `http://127.0.0.1:${loopbackOnly}/`), (v) => v === 'ploop');
    assert.equal(wgetFromHost(netns, `http://${HOST}:${loopbackOnly}/`), undefined);
  });

  it('shows the bindings in docker port and in the Ports column of docker ps, as dockerd (IPv4 lines)', async () => {
    const loopbackPort = await hostPort('ploop', '80/tcp');
    const all80 = await hostPort('pall', '80/tcp');
    const all81 = await hostPort('pall', '81/tcp');
    for (const p of [loopbackPort, all80, all81]) assert.ok(Number(p) >= 1024, `an ephemeral port: ${p}`);
    assert.equal((await d.docker(['port', 'p8080'])).stdout, '80/tcp -> 0.0.0.0:8080\n');
    assert.equal((await d.docker(['port', 'ploop'])).stdout, `80/tcp -> 127.0.0.1:${loopbackPort}\n`);
    assert.equal((await d.docker(['port', 'prange'])).stdout, '80/tcp -> 0.0.0.0:9000\n');
    assert.equal((await d.docker(['port', 'pall'])).stdout, `80/tcp -> 0.0.0.0:${all80}\n81/tcp -> 0.0.0.0:${all81}\n`);
    assert.equal((await d.docker(['port', 'pexposed'])).stdout, '80/tcp -> 0.0.0.0:8081\n');
    const ps = Object.fromEntries(
      (await d.docker(['ps', '--format', '{{.Names}}|{{.Ports}}'])).stdout
        .trim()
        .split('\n')
        .map((l) => l.split('|')),
    );
    assert.deepEqual(ps, {
      p8080: '0.0.0.0:8080->80/tcp',
      ploop: `127.0.0.1:${loopbackPort}->80/tcp`,
      prange: '0.0.0.0:9000->80/tcp',
      pall: `0.0.0.0:${all80}->80/tcp, 0.0.0.0:${all81}->81/tcp`,
      pexposed: '5000/tcp, 0.0.0.0:8081->80/tcp',
    });
  });

  it('lists an exposed port without a binding as null in NetworkSettings.Ports', async () => {
    assert.deepEqual((await inspectContainer(d, 'pexposed')).NetworkSettings.Ports, { '5000/tcp': null, '80/tcp': [{ HostIp: '0.0.0.0', HostPort: '8081' }] });
    assert.deepEqual((await inspectContainer(d, 'ploop')).NetworkSettings.Ports, { '80/tcp': [{ HostIp: '127.0.0.1', HostPort: await hostPort('ploop', '80/tcp') }] });
  });

  it('takes the next free port of a range', async () => {
    await runDetached(d, ['--name', 'prange2', '-p', '9000-9002:80', 'busybox', ...httpd('prange2')]);
    assert.equal((await d.docker(['port', 'prange2'])).stdout, '80/tcp -> 0.0.0.0:9001\n');
    await until('prange2 on 9001', () => wgetFromHost(netns, `http://${HOST}:9001/`), (v) => v === 'prange2');
    assert.equal(wgetFromHost(netns, `http://${HOST}:9000/`), 'prange');
  });

  it('leaves no DNAT rule when the container stops, and its host port serves the next one', async () => {
    const first = await runDetached(d, ['--name', 'first-owner', '-p', '8090:80', 'busybox', ...httpd('first-owner')]);
    await until('first-owner on 8090', () => wgetFromHost(netns, `http://${HOST}:8090/`), (v) => v === 'first-owner');
    assert.notDeepEqual(natRulesOf(netns, first), []);
    assert.equal((await d.docker(['stop', '-t', '0', 'first-owner'])).code, 0);
    assert.deepEqual(natRulesOf(netns, first), [], "the stopped container's DNAT rules");
    await runDetached(d, ['--name', 'next-owner', '-p', '8090:80', 'busybox', ...httpd('next-owner')]);
    await until('next-owner on 8090', () => wgetFromHost(netns, `http://${HOST}:8090/`), (v) => v === 'next-owner');
    assert.equal((await d.docker(['rm', '-f', 'first-owner', 'next-owner'])).code, 0);
  });

  it('is reached through the host address by another container on the default bridge (hairpin)', async () => {
    await runDetached(d, ['--name', 'neighbour', 'busybox', 'sleep', '600']);
    const got = await sh(d, 'neighbour', `timeout 5 wget -qO- http://${HOST}:8080/`);
    assert.equal(got.stdout.trim(), 'p8080', got.stderr);
  });

  it('is reached through the host address by the publishing container itself', async () => {
    const got = await sh(d, 'p8080', `timeout 5 wget -qO- http://${HOST}:8080/`);
    assert.equal(got.stdout.trim(), 'p8080', got.stderr);
  });

  it('is reached through the host address by a container on a user-defined network, as through dockerd', async () => {
    assert.equal((await d.docker(['network', 'create', 'elsewhere'])).code, 0);
    await runDetached(d, ['--name', 'far', '--network', 'elsewhere', 'busybox', 'sleep', '600']);
    const got = await sh(d, 'far', `timeout 5 wget -qO- http://${HOST}:8080/`);
    assert.equal(got.stdout.trim(), 'p8080', got.stderr);
  });
});

describe('a host port that is taken', () => {
  let d: Berthd;
  let netns: string;
  let execRoot: string;
  before(async () => {
    d = await startWithBusybox();
    netns = d.netns!;
    execRoot = path.join(d.dir, 'exec');
    await runDetached(d, ['--name', 'holder', '-p', '8080:80', 'busybox', ...httpd('holder')]);
    await until('holder to answer', () => wgetFromHost(netns, 'http://127.0.0.1:8080/'), (v) => v === 'holder');
  });
  after(async () => {
    await teardown(d);
  });

  /** Runs `docker run -d --name <name> -p <publish> busybox sleep 600`, which must fail, and checks that nothing is left of it. */
  async function runRefused(name: string, publish: string, message: RegExp): Promise<void> {
    const veths = bridgePorts(netns, DEFAULT_BRIDGE);
    const files = netnsFiles(execRoot);
    const chains = dnatChains(netns);
    const r = await d.docker(['run', '-d', '--name', name, '-p', publish, 'busybox', 'sleep', '600']);
    assert.equal(r.code, 125, r.stderr);
    assert.match(r.stderr, new RegExp(`^docker: Error response from daemon: ${message.source.replace(/^\^/, '')}`, 'm'));
    const c = await inspectContainer(d, name);
    assert.deepEqual([c.State.Status, c.State.Running, c.State.ExitCode], ['created', false, 128]);
    assert.match(c.State.Error, message);
    assert.deepEqual(bridgePorts(netns, DEFAULT_BRIDGE), veths, 'no veth left on the bridge');
    assert.deepEqual(netnsFiles(execRoot), files, 'no namespace file left');
    assert.ok(!files.includes(c.Id));
    assert.deepEqual(natRulesOf(netns, c.Id), [], 'no DNAT rule left');
    assert.deepEqual(dnatChains(netns), chains, 'no DNAT chain left');
  }

  it('by another container: exit 125, "port is already allocated", nothing left, the holder still served', async () => {
    await runRefused('second', '8080:80', /^driver failed programming external connectivity on endpoint second \([0-9a-f]{64}\): Bind for 0\.0\.0\.0:8080 failed: port is already allocated$/);
    assert.equal(wgetFromHost(netns, 'http://127.0.0.1:8080/'), 'holder');
  });

  it("by a process of the host's: exit 125, \"address already in use\", nothing left", async () => {
    const nc = spawnIn(netns, 'busybox', ['nc', '-l', '-p', '8099']);
    try {
      await until('nc to listen', () => execIn(netns, 'ss', ['-Hltn', 'sport = :8099']), (v) => v.includes(':8099'));
      await runRefused('blocked', '8099:80', /^driver failed programming external connectivity on endpoint blocked \([0-9a-f]{64}\): Error starting userland proxy: listen tcp4 0\.0\.0\.0:8099: bind: address already in use$/);
    } finally {
      nc.kill('SIGKILL');
    }
    // once the port is free, the same container starts
    await until('the port to be free', () => execIn(netns, 'ss', ['-Hltn', 'sport = :8099']), (v) => v.trim() === '');
    const start = await d.docker(['start', 'blocked']);
    assert.equal(start.code, 0, start.stderr);
    assert.equal((await d.docker(['port', 'blocked'])).stdout, '80/tcp -> 0.0.0.0:8099\n');
  });
});
