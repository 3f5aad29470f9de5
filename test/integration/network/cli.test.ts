// docker network create, ls, inspect, rm and prune against a real berthd, with the outputs the
// reference engine (dockerd 20.10) gives for the same commands. Records only: no bridge is made
// (berthd runs in a namespace of its own all the same).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Berthd } from '../../helpers/berthd.js';
import { execIn } from '../../helpers/netns.js';

interface WireNetwork {
  Name: string;
  Id: string;
  Created: string;
  Driver: string;
  EnableIPv6: boolean;
  IPAM: { Driver: string; Options: Record<string, string> | null; Config: Array<Record<string, unknown>> };
  Internal: boolean;
  Attachable: boolean;
  Options: Record<string, string>;
  Labels: Record<string, string>;
  Containers: Record<string, unknown>;
}

describe('docker network', () => {
  let d: Berthd;
  before(async () => {
    // removing a network undoes its plumbing, which is the namespace's business
    d = await Berthd.start({ netns: 'own' });
  });
  after(async () => {
    await d.stop();
  });

  async function docker(...args: string[]): Promise<string> {
    const r = await d.docker(args);
    assert.equal(r.code, 0, `docker ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  }

  async function inspect(name: string): Promise<WireNetwork> {
    return (JSON.parse(await docker('network', 'inspect', name)) as WireNetwork[])[0];
  }

  it('lists the predefined networks', async () => {
    const out = await docker('network', 'ls', '--format', '{{.Name}} {{.Driver}} {{.Scope}}');
    assert.deepEqual(out.trim().split('\n').sort(), ['bridge bridge local', 'host host local', 'none null local']);
    const bridge = await inspect('bridge');
    assert.deepEqual(bridge.IPAM, { Driver: 'default', Options: null, Config: [{ Subnet: '172.17.0.0/16', Gateway: '172.17.0.1' }] });
    assert.equal(bridge.Options['com.docker.network.bridge.default_bridge'], 'true');
    assert.equal(bridge.Options['com.docker.network.bridge.name'], 'berth0');
  });

  it('creates a network with every IPAM setting, as dockerd shows it', async () => {
    const id = (
      await docker(
        'network', 'create', '--subnet', '10.80.0.0/24', '--gateway', '10.80.0.254', '--ip-range', '10.80.0.128/25',
        '--aux-address', 'host1=10.80.0.10', '--internal', '--attachable', '--label', 'a=b', '-o', 'com.docker.network.driver.mtu=1400', 'cli',
      )
    ).trim();
    assert.match(id, /^[0-9a-f]{64}$/);
    const n = await inspect('cli');
    assert.equal(n.Id, id);
    assert.match(n.Created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
    assert.deepEqual(
      { ...n, Id: '', Created: '' },
      {
        Name: 'cli',
        Id: '',
        Created: '',
        Scope: 'local',
        Driver: 'bridge',
        EnableIPv6: false,
        IPAM: {
          Driver: 'default',
          Options: {},
          Config: [{ Subnet: '10.80.0.0/24', IPRange: '10.80.0.128/25', Gateway: '10.80.0.254', AuxiliaryAddresses: { host1: '10.80.0.10' } }],
        },
        Internal: true,
        Attachable: true,
        Ingress: false,
        ConfigFrom: { Network: '' },
        ConfigOnly: false,
        Containers: {},
        Options: { 'com.docker.network.driver.mtu': '1400' },
        Labels: { a: 'b' },
      },
    );
    const again = await d.docker(['network', 'create', 'cli']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /Error response from daemon: network with name cli already exists/);
  });

  it('takes a default pool, and IPv6 only with a subnet', async () => {
    await docker('network', 'create', '--ipv6', '--subnet', 'fd00:80::/64', 'six');
    const n = await inspect('six');
    assert.equal(n.EnableIPv6, true);
    assert.deepEqual(n.IPAM.Config, [{ Subnet: '172.18.0.0/16', Gateway: '172.18.0.1' }, { Subnet: 'fd00:80::/64' }]);
    const bare = await d.docker(['network', 'create', '--ipv6', 'six-bare']);
    assert.equal(bare.code, 1);
    assert.match(bare.stderr, /could not find an available, non-overlapping IPv6 address pool among the defaults to assign to the network/);
  });

  it('records a macvlan network on a parent without making anything', async () => {
    // the parent is a link of berthd's own namespace
    execIn(d.netns!, 'ip', ['link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'eth0p']);
    await docker('network', 'create', '-d', 'macvlan', '-o', 'parent=eth0', '--subnet', '10.90.0.0/24', 'mac');
    const n = await inspect('mac');
    assert.equal(n.Driver, 'macvlan');
    assert.deepEqual(n.Options, { parent: 'eth0' });
    assert.deepEqual(n.IPAM.Config, [{ Subnet: '10.90.0.0/24' }]);
  });

  it('lists with filters as dockerd matches them', async () => {
    const names = async (...filters: string[]) =>
      (await docker('network', 'ls', '--format', '{{.Name}}', ...filters.flatMap((f) => ['--filter', f]))).trim().split('\n').filter(Boolean).sort();
    assert.deepEqual(await names('name=c'), ['cli', 'mac']);
    assert.deepEqual(await names('name=^s'), ['six']);
    assert.deepEqual(await names('driver=macvlan'), ['mac']);
    assert.deepEqual(await names('label=a=b'), ['cli']);
    assert.deepEqual(await names('type=custom'), ['cli', 'mac', 'six']);
    assert.deepEqual(await names('type=builtin'), ['bridge', 'host', 'none']);
    assert.deepEqual(await names('dangling=true'), ['cli', 'mac', 'six']);
    const id = (await inspect('mac')).Id;
    assert.deepEqual(await names(`id=${id.slice(3, 12)}`), ['mac']);
    const bad = await d.docker(['network', 'ls', '--filter', 'dangling=maybe']);
    assert.match(bad.stderr, /invalid value for filter 'dangling', must be "true" \(or "1"\), or "false" \(or "0"\)/);
  });

  it('removes by name or ID prefix, refuses predefined networks, and prunes the rest', async () => {
    const id = (await inspect('six')).Id;
    assert.equal((await docker('network', 'rm', id.slice(0, 8))).trim(), id.slice(0, 8));
    const missing = await d.docker(['network', 'rm', 'nosuch']);
    assert.match(missing.stderr, /Error response from daemon: network nosuch not found/);
    const predefined = await d.docker(['network', 'rm', 'bridge']);
    assert.match(predefined.stderr, /Error response from daemon: bridge is a pre-defined network and cannot be removed/);
    await docker('network', 'create', '--label', 'keep=1', 'kept');
    const pruned = await docker('network', 'prune', '-f', '--filter', 'label!=keep');
    assert.deepEqual(pruned.trim().split('\n').slice(1).sort(), ['cli', 'mac']);
    const left = (await docker('network', 'ls', '--format', '{{.Name}}')).trim().split('\n').sort();
    assert.deepEqual(left, ['bridge', 'host', 'kept', 'none']);
  });
});
