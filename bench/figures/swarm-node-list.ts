// The latency of the node list on a berth swarm of five nodes, three managers (each runs an etcd
// member, so a list is a read of the etcd cluster) and two workers, formed as a user would: `swarm
// init` on n1, n2 and n3 joining with the manager token, n4 and n5 with the worker token, then
// waiting until n1 lists five nodes Ready and three managers reachable. The reference answers
// for its one-node swarm (bench/reference-swarm.ts), the only one it can have.
//
// GET /nodes (API), REQUESTS one after the other on a keep-alive connection, at berth's leader (the
// manager `docker node ls` marks Leader: the one holding the swarm's leader key, not necessarily
// etcd's raft leader), at one of its two other managers, and at the reference, in alternating
// blocks so that drift on the machine hits all alike: the median and the 99th percentile of
// each. Then `docker node ls` through the docker CLI at the leader and at the reference, whose
// own start is most of either's time. The forming is timed too, once: each manager's join (the
// second's moves the swarm's store from the first manager's local store into etcd members; the
// third's, right after it, waits for etcd, which adds a member only once the one asked has been
// connected to every voter for 5 s), and the time from the last join's return until the first
// manager lists every node Ready and the three managers reachable.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ContainerEngine, EngineName } from '../container-engines.js';
import type { CliRun } from '../docker-cli.js';
import type { EngineApi } from '../engine-api.js';
import { alternateRounds, comparedRow } from '../engine-rounds.js';
import type { BenchContext, Figure, Row } from '../figure.js';
import { median, percentile } from '../median.js';
import { referenceSwarmHost } from '../reference-swarm.js';
import { startSwarmNodes, type SwarmNode } from '../swarm-nodes.js';

const NODES = 5;
const MANAGERS = 3;
const REQUESTS = 200;
const BLOCKS = 5;
const WARM_UPS = 10;
const CLI_ROUNDS = 7;
const FORMED_TIMEOUT_MS = 60_000;
const POLL_MS = 50;
const SWARM = `${NODES} nodes (${MANAGERS} managers, ${NODES - MANAGERS} workers)`;

interface NodeJson {
  ID: string;
  Status: { State: string };
  ManagerStatus?: { Leader?: boolean; Reachability: string };
}

interface Target {
  label: string;
  api: EngineApi;
  /** how many nodes every answer must list */
  nodes: number;
  assertRunning(): void;
}

export const swarmNodeList: Figure = {
  name: 'swarm node ls',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const configDir = ctx.makeDir('docker-config');
    const swarm = await startSwarmNodes(ctx, 'swarm-ls', NODES);
    try {
      const { managerJoins, formedMs } = await form(ctx, swarm.nodes);
      const { leader, follower } = await leadership(swarm.nodes);
      ctx.progress(`formed: the leader is ${leader.name}, ${follower.name} follows`);
      const reference = await referenceSwarmHost(ctx, configDir);
      try {
        const targets: Target[] = [
          { label: 'leader', api: leader.api, nodes: NODES, assertRunning: () => leader.berthd.assertRunning() },
          { label: 'follower', api: follower.api, nodes: NODES, assertRunning: () => follower.berthd.assertRunning() },
        ];
        const engines: ContainerEngine[] = [{ name: 'berth', socket: leader.berthd.socket, api: leader.api, netns: leader.berthd.netns, assertRunning: () => leader.berthd.assertRunning() }];
        const cli = new Map<EngineName, (args: string[]) => Promise<CliRun>>([['berth', leader.docker]]);
        if (reference !== null && 'engine' in reference) {
          await reference.docker(['swarm', 'init', '--advertise-addr', reference.advertiseAddr]);
          targets.push({ label: 'reference', api: reference.engine.api, nodes: 1, assertRunning: () => undefined });
          engines.push(reference.engine);
          cli.set('reference', reference.docker);
        } else if (reference !== null) {
          ctx.progress(reference.skipped);
        }
        const latencies = await listLatencies(ctx, targets);
        const cliSamples = await alternateRounds(ctx, engines, { warmUps: 1, rounds: CLI_ROUNDS, unit: 'ms' }, async (engine) => {
          const run = await (cli.get(engine.name) as (args: string[]) => Promise<CliRun>)(['node', 'ls']);
          // the header, then a line per node
          const listed = run.stdout.trimEnd().split('\n').length - 1;
          const expected = engine.name === 'berth' ? NODES : 1;
          if (listed !== expected) throw new Error(`docker node ls on ${engine.name} listed ${listed} nodes, not ${expected}`);
          return run.ms;
        });
        const ref = latencies.get('reference') ?? [];
        const skipped = reference !== null && 'skipped' in reference ? reference.skipped : undefined;
        const refNote = skipped ?? (ref.length > 0 ? 'the reference: its one-node swarm' : undefined);
        const row = (at: string, samples: number[], stat: 'median' | 'p99'): Row => {
          const value = (s: number[]) => (stat === 'median' ? median(s) : percentile(s, 99));
          return {
            figure: `GET /nodes on ${SWARM} at ${at}, ${stat} of ${REQUESTS} (API)`,
            unit: 'ms',
            berth: value(samples),
            reference: ref.length > 0 ? value(ref) : null,
            samples: { berth: samples, reference: ref },
            ...(refNote ? { note: refNote } : {}),
          };
        };
        const leaderSamples = latencies.get('leader') as number[];
        const followerSamples = latencies.get('follower') as number[];
        const once = 'once, berth only';
        return [
          row('the leader', leaderSamples, 'median'),
          row('the leader', leaderSamples, 'p99'),
          row('another manager', followerSamples, 'median'),
          row('another manager', followerSamples, 'p99'),
          comparedRow(`docker node ls on ${SWARM} at the leader (CLI)`, 'ms', cliSamples, undefined, refNote),
          { figure: 'docker swarm join of the 2nd manager, the store moved into etcd (CLI)', unit: 's', berth: managerJoins[0] / 1000, reference: null, note: once },
          { figure: 'docker swarm join of the 3rd manager, right after the 2nd (CLI)', unit: 's', berth: managerJoins[1] / 1000, reference: null, note: `${once}; etcd adds a member once the one asked has been connected to every voter for 5 s` },
          { figure: `swarm of ${NODES} formed: from the last join's return to all Ready, managers reachable`, unit: 's', berth: formedMs / 1000, reference: null, note: once },
        ];
      } finally {
        if (reference !== null && 'engine' in reference) await reference.close();
      }
    } finally {
      await swarm.close();
    }
  },
};

/** Forms the swarm on the nodes; the manager joins' times, in order, and the time from the last join's return until the first manager lists the swarm formed. */
async function form(ctx: BenchContext, nodes: SwarmNode[]): Promise<{ managerJoins: number[]; formedMs: number }> {
  const [first] = nodes;
  await first.docker(['swarm', 'init', '--advertise-addr', first.addr]);
  const token = async (role: string) => (await first.docker(['swarm', 'join-token', '-q', role])).stdout.trim();
  const managerToken = await token('manager');
  const workerToken = await token('worker');
  const managerJoins: number[] = [];
  for (const [i, node] of nodes.slice(1).entries()) {
    const manager = i + 1 < MANAGERS;
    const join = await node.docker(['swarm', 'join', '--token', manager ? managerToken : workerToken, '--advertise-addr', node.addr, `${first.addr}:2377`]).catch((err: unknown) => {
      for (const n of nodes) n.berthd.assertRunning();
      throw err;
    });
    ctx.progress(`${node.name} joined as a ${manager ? 'manager' : 'worker'} in ${join.ms.toFixed(1)} ms`);
    if (manager) managerJoins.push(join.ms);
  }
  const startedMs = performance.now();
  for (;;) {
    const seen = await nodeList(first.api);
    const ready = seen.filter((n) => n.Status.State === 'ready').length;
    const reachable = seen.filter((n) => n.ManagerStatus?.Reachability === 'reachable').length;
    if (ready === NODES && reachable === MANAGERS) break;
    if (performance.now() - startedMs > FORMED_TIMEOUT_MS) throw new Error(`the swarm did not form within ${FORMED_TIMEOUT_MS} ms: ${first.name} lists ${seen.length} nodes, ${ready} Ready, ${reachable} managers reachable`);
    await sleep(POLL_MS);
  }
  const formedMs = performance.now() - startedMs;
  ctx.progress(`${NODES} nodes Ready, ${MANAGERS} managers reachable ${formedMs.toFixed(0)} ms after the last join`);
  return { managerJoins, formedMs };
}

/** The manager marked Leader and another manager. */
async function leadership(nodes: SwarmNode[]): Promise<{ leader: SwarmNode; follower: SwarmNode }> {
  const ids = new Map<string, SwarmNode>();
  for (const node of nodes) {
    const info = JSON.parse((await node.api.call('GET', '/info', [200])).text) as { Swarm: { NodeID: string } };
    ids.set(info.Swarm.NodeID, node);
  }
  const listed = await nodeList(nodes[0].api);
  const leaderId = listed.find((n) => n.ManagerStatus?.Leader === true)?.ID;
  const followerId = listed.find((n) => n.ManagerStatus !== undefined && n.ManagerStatus.Leader !== true)?.ID;
  const leader = leaderId === undefined ? undefined : ids.get(leaderId);
  const follower = followerId === undefined ? undefined : ids.get(followerId);
  if (!leader || !follower) throw new Error(`no leader and other manager among the nodes listed: ${JSON.stringify(listed.map((n) => [n.ID, n.ManagerStatus]))}`);
  return { leader, follower };
}

async function nodeList(api: EngineApi): Promise<NodeJson[]> {
  return JSON.parse((await api.call('GET', '/nodes', [200])).text) as NodeJson[];
}

/** REQUESTS timed GET /nodes per target, in BLOCKS rounds of alternating blocks, after WARM_UPS untimed ones each. */
async function listLatencies(ctx: BenchContext, targets: Target[]): Promise<Map<string, number[]>> {
  const samples = new Map<string, number[]>(targets.map((t) => [t.label, []]));
  const perBlock = REQUESTS / BLOCKS;
  for (const target of targets) for (let i = 0; i < WARM_UPS; i++) await timedList(target);
  for (let block = 1; block <= BLOCKS; block++) {
    for (const target of targets) {
      const kept = samples.get(target.label) as number[];
      for (let i = 0; i < perBlock; i++) kept.push(await timedList(target));
      ctx.progress(`block ${block}/${BLOCKS} ${target.label}: median so far ${median(kept).toFixed(2)} ms`);
    }
  }
  return samples;
}

async function timedList(target: Target): Promise<number> {
  const startedMs = performance.now();
  const answer = await target.api.call('GET', '/nodes', [200]).catch((err: unknown) => {
    target.assertRunning();
    throw err;
  });
  const ms = performance.now() - startedMs;
  const listed = (JSON.parse(answer.text) as unknown[]).length;
  if (listed !== target.nodes) throw new Error(`GET /nodes at the ${target.label} listed ${listed} nodes, not ${target.nodes}`);
  return ms;
}
