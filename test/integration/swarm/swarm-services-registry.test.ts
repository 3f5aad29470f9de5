// A service whose image is in a registry that wants credentials (Debian's docker-registry with
// htpasswd, in the manager's namespace on its underlay address): created with
// `--with-registry-auth`, its task runs on a worker that lacks the image, pulled there with the
// credentials the service was created with; without them, the worker's task is rejected.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadBusybox } from '../../helpers/busybox-image.js';
import { startRegistry, type Registry } from '../../helpers/registry.js';
import { startSwarmNodes, type SwarmNode, type SwarmNodes } from '../../helpers/swarm-nodes.js';
import { until } from '../../helpers/until.js';

interface TaskJson {
  ID: string;
  NodeID?: string;
  DesiredState: string;
  Status: { State: string; Err?: string };
}

async function cli(node: SwarmNode, args: string[], input?: string): Promise<string> {
  const r = await node.docker(args, { timeoutMs: 120_000, ...(input !== undefined ? { input } : {}) });
  assert.equal(r.code, 0, `docker ${args.join(' ')} on ${node.name}: ${r.stderr}`);
  return r.stdout;
}

describe('a service pulled with the credentials it was created with', () => {
  let swarm: SwarmNodes;
  let registry: Registry;
  let n1: SwarmNode;
  let n2: SwarmNode;
  let image: string;

  before(async () => {
    // the underlay's addresses are insecure registries for every node (plain HTTP)
    swarm = await startSwarmNodes(2, { args: () => ['--insecure-registry', '10.213.0.0/24'] });
    [n1, n2] = swarm.nodes as [SwarmNode, SwarmNode];
    registry = await startRegistry({ netns: n1.netns, address: n1.addr, auth: 'htpasswd', users: { alice: 's3cret' } });
    image = `${registry.host}/app:1`;
    await loadBusybox(n1.berthd, image);
    await cli(n1, ['login', '-u', 'alice', '--password-stdin', registry.host], 's3cret');
    await cli(n1, ['push', image]);
    await cli(n1, ['swarm', 'init', '--advertise-addr', n1.addr]);
    const token = (await cli(n1, ['swarm', 'join-token', '-q', 'worker'])).trim();
    await cli(n2, ['swarm', 'join', '--token', token, `${n1.addr}:2377`]);
  });
  after(async () => {
    await registry?.close();
    await swarm?.close();
  });

  /** the IDs of n2's images pulled from the registry (by digest: the CLI pins the service's image, so they have no tag) */
  const pulled = async () => ((await n2.request('GET', '/images/json?digests=1')).json() as Array<{ Id: string; RepoDigests: string[] | null }>).filter((i) => (i.RepoDigests ?? []).some((d) => d.startsWith(`${registry.host}/app@`))).map((i) => i.Id);
  const tasks = async (service: string) => (await n1.request('GET', `/tasks?filters=${encodeURIComponent(JSON.stringify({ service: [service] }))}`)).json() as TaskJson[];

  it('runs on a worker that lacks the image, pulled with --with-registry-auth', async () => {
    assert.deepEqual(await pulled(), []);
    await cli(n1, ['service', 'create', '--detach', '--with-registry-auth', '--name', 'private', '--constraint', 'node.role==worker', image, 'sleep', '3600']);
    const [t] = await until('the task running on the worker', () => tasks('private'), (ts) => ts.some((x) => x.Status.State === 'running'), 60_000);
    assert.equal(t!.Status.State, 'running');
    assert.equal((await pulled()).length, 1);
    await cli(n1, ['service', 'rm', 'private']);
  });

  it('is rejected on the worker without them', async () => {
    await until('the first service’s container gone', async () => (await n2.request('GET', '/containers/json?all=1')).json() as unknown[], (cs) => cs.length === 0, 30_000);
    for (const id of await pulled()) await cli(n2, ['rmi', '-f', id]);
    assert.deepEqual(await pulled(), []);
    await cli(n1, ['logout', registry.host]);
    await cli(n1, ['service', 'create', '--detach', '--name', 'anonymous', '--constraint', 'node.role==worker', image, 'sleep', '3600']);
    const rejected = await until('a rejected task', () => tasks('anonymous'), (ts) => ts.some((x) => x.Status.State === 'rejected'), 60_000);
    assert.equal(rejected.find((x) => x.Status.State === 'rejected')!.Status.Err, `No such image: ${image}`);
    await cli(n1, ['service', 'rm', 'anonymous']);
  });
});
