// The swarm tests' harness itself (test/helpers/swarm-nodes.ts): three berthd nodes on one
// underlay, each serving on its own socket, reaching the others by TCP on their underlay addresses
// until isolate() cuts one off and heal() joins it again; a node's restart, after a stop or a
// kill -9, on the same data root; and close() leaving nothing on the machine, even a container a
// killed berthd left running.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadBusybox } from '../../helpers/busybox-image.js';
import { spawnIn } from '../../helpers/netns.js';
import { startSwarmNodes, type SwarmNode, type SwarmNodes } from '../../helpers/swarm-nodes.js';

const PORT = 7070;

/** Node's script: a TCP server on argv[1]:argv[2] that answers argv[3] and closes. */
const SERVE = `require('node:net').createServer((s) => s.end(process.argv[3])).listen(Number(process.argv[2]), process.argv[1], () => console.log('listening'));`;

/** Node's script: connects to argv[1]:argv[2] and prints what it is sent; exits 1 when no connection within argv[3] ms. */
const CONNECT = `const s = require('node:net').connect(Number(process.argv[2]), process.argv[1]);
let got = '';
const t = setTimeout(() => process.exit(1), Number(process.argv[3]));
s.on('data', (d) => (got += d));
s.on('end', () => { clearTimeout(t); process.stdout.write(got); });
s.on('error', () => process.exit(1));`;

/** Serves the node's name on its underlay address, in its namespace (the listener goes with the namespace). */
async function serveName(node: SwarmNode): Promise<void> {
  const child = spawnIn(node.netns, process.execPath, ['-e', SERVE, node.addr, String(PORT), node.name]);
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`listener in ${node.name} exited (${code})`)));
  });
}

/** What `to` answers on its underlay address from `from`'s namespace, or undefined when it can't be reached. */
function reach(from: SwarmNode, to: SwarmNode, timeoutMs = 500): string | undefined {
  try {
    return from.exec(process.execPath, ['-e', CONNECT, to.addr, String(PORT), String(timeoutMs)]);
  } catch {
    return undefined;
  }
}

/** Whether the process runs (a zombie, dead but not yet reaped by pid 1, does not). */
/** The daemon's labels (GET /info), which the tests set with --label to see the flags a start gave. */
async function labels(node: SwarmNode): Promise<string[]> {
  return (JSON.parse((await node.request('GET', '/info')).body) as { Labels: string[] }).Labels;
}

function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.charAt(stat.lastIndexOf(')') + 2) !== 'Z';
  } catch {
    return false;
  }
}

/** The cgroup folders of `relative` that exist, in every hierarchy (v1 and v2 alike). */
function cgroupDirsOf(relative: string): string[] {
  const roots = ['/sys/fs/cgroup', ...readdirSync('/sys/fs/cgroup').map((c) => path.join('/sys/fs/cgroup', c))];
  return roots.map((root) => path.join(root, relative)).filter((dir) => existsSync(dir));
}

/**
 * Host links and /run/netns entries that appeared since `before` and could be the swarm's (its
 * names): the helper makes none on the host, and another developer's tests may make theirs meanwhile.
 */
function appeared(before: string[], now: string[]): string[] {
  return now.filter((name) => !before.includes(name) && /^(sw0|eth0|n\d+|swarm\d+-.*)$/.test(name));
}

function hostLinks(): string[] {
  return execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.split(':')[1]?.trim().split('@')[0])
    .filter((name) => name !== undefined);
}

function runNetns(): string[] {
  return existsSync('/run/netns') ? readdirSync('/run/netns') : [];
}

describe('several berthd nodes on one machine', () => {
  let swarm: SwarmNodes;
  let n1: SwarmNode, n2: SwarmNode, n3: SwarmNode;
  /** the container a killed n3 leaves running, for close() to end */
  let survivor = { id: '', pid: 0 };
  const linksBefore = hostLinks();
  const netnsBefore = runNetns();

  before(async () => {
    swarm = await startSwarmNodes(3, { args: (node) => ['--label', `node=${node.name}`] });
    [n1, n2, n3] = swarm.nodes;
    for (const node of swarm.nodes) await serveName(node);
  });

  // the last test closes it; this is for a failure before
  after(() => swarm?.close());

  it('starts each node on its own socket, roots and underlay address', async () => {
    assert.deepEqual(
      swarm.nodes.map((n) => n.addr),
      ['10.213.0.1', '10.213.0.2', '10.213.0.3'],
    );
    assert.equal(new Set(swarm.nodes.map((n) => n.socket)).size, 3);
    assert.equal(new Set(swarm.nodes.map((n) => n.dataRoot)).size, 3);
    for (const node of swarm.nodes) {
      const ping = await node.request('GET', '/_ping');
      assert.equal(ping.status, 200, node.name);
      assert.equal(ping.body, 'OK');
      const version = await node.docker(['version', '--format', '{{.Server.APIVersion}}']);
      assert.equal(version.code, 0, version.stderr);
      assert.equal(version.stdout.trim(), '1.41');
      // berthd is in the node's namespace: it sees eth0 with the node's address
      assert.equal(node.exec('readlink', [`/proc/${node.pid}/ns/net`]), node.exec('readlink', ['/proc/self/ns/net']));
      assert.match(node.exec('ip', ['-br', 'addr', 'show', 'eth0']), new RegExp(` ${node.addr.replace(/\./g, '\\.')}/24`));
      assert.deepEqual(await labels(node), [`node=${node.name}`]);
    }
  });

  it('links the nodes by TCP on their underlay addresses until isolate() cuts one off, and heal() joins it again', () => {
    assert.equal(reach(n1, n2), 'n2');
    assert.equal(reach(n1, n3), 'n3');
    assert.equal(reach(n2, n1), 'n1');

    swarm.isolate(n1);
    assert.equal(reach(n1, n2), undefined);
    assert.equal(reach(n1, n3), undefined);
    assert.equal(reach(n2, n1), undefined, 'n2 still reaches n1: cut one way only');
    assert.equal(reach(n2, n3), 'n3', 'n2 and n3 were cut off from each other too');

    swarm.heal(n1);
    assert.equal(reach(n1, n2), 'n2');
    assert.equal(reach(n3, n1), 'n1');
    assert.equal(n1.exec('iptables-save', ['-t', 'raw']).includes('DROP'), false, 'heal() left rules');

    swarm.isolate(n1, [n2]);
    assert.equal(reach(n1, n2), undefined);
    assert.equal(reach(n1, n3), 'n3', 'n1 was cut off from n3 too');
    swarm.heal(n1);
    assert.equal(reach(n1, n2), 'n2');
  });

  it('delays what a node sends with netem, where the kernel has it', (t) => {
    if (!swarm.netemAvailable()) {
      t.skip('no sch_netem in this kernel');
      return;
    }
    swarm.netem(n1, { delayMs: 300 });
    const start = Date.now();
    assert.equal(reach(n1, n2, 5000), 'n2');
    assert.ok(Date.now() - start >= 300, 'no delay');
    swarm.netem(n1, undefined);
  });

  it('restarts a node on the same data root and namespace, with other flags when asked', async () => {
    assert.equal((await n2.docker(['volume', 'create', 'kept'])).code, 0);
    const before = n2.pid;
    await n2.restart();
    assert.notEqual(n2.pid, before);
    const volumes = await n2.docker(['volume', 'ls', '-q']);
    assert.deepEqual(volumes.stdout.trim().split('\n'), ['kept']);
    assert.equal(reach(n1, n2), 'n2');
    assert.deepEqual(await labels(n2), ['node=n2']);

    await n2.restart({ args: ['--label', 'node=n2', '--label', 'restarted=1'] });
    assert.deepEqual(await labels(n2), ['node=n2', 'restarted=1']);
    await n2.restart();
    assert.deepEqual(await labels(n2), ['node=n2', 'restarted=1'], 'a restart forgot the flags the last one gave');
  });

  it('kills a node with kill -9, and starts it again on what the kill left', async () => {
    await loadBusybox(n3.berthd);
    const run = await n3.docker(['run', '-d', '--name', 'survivor', 'busybox', 'sleep', '300']);
    assert.equal(run.code, 0, run.stderr);
    const pid = await n3.kill();
    assert.equal(running(pid), false);
    await assert.rejects(n3.request('GET', '/_ping'));
    await n3.start();
    assert.equal((await n3.request('GET', '/_ping')).status, 200);
    assert.deepEqual(await labels(n3), ['node=n3']);
    const ps = await n3.docker(['ps', '--format', '{{.Names}}']);
    assert.equal(ps.stdout.trim(), 'survivor');
    const [id, containerPid] = (await n3.docker(['inspect', '-f', '{{.Id}} {{.State.Pid}}', 'survivor'])).stdout.trim().split(' ');
    survivor = { id, pid: Number(containerPid) };
    assert.ok(running(survivor.pid));
    assert.notDeepEqual(cgroupDirsOf(path.join(n3.cgroupParent, id)), [], 'the container sits under its node\'s parent cgroup');
    // killed again, so that close() meets a container whose berthd is gone
    await n3.kill();
  });

  it('leaves nothing behind after close(): no process, mount, namespace, link or folder', async () => {
    const pids = swarm.nodes.map((n) => n.pid);
    await swarm.close();
    assert.deepEqual(swarm.remains(), { folder: [], mounts: [], netnsFiles: [], processes: [] });
    for (const pid of [...pids, survivor.pid]) assert.equal(running(pid), false, `pid ${pid} runs on`);
    for (const n of swarm.nodes) assert.deepEqual(cgroupDirsOf(n.cgroupParent), [], `${n.name}'s parent cgroup`);
    assert.deepEqual(appeared(linksBefore, hostLinks()), []);
    assert.deepEqual(appeared(netnsBefore, runNetns()), []);
  });
});
