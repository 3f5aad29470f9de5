// The swarms the service figures run services on: berth's of three nodes (bench/swarm-nodes.ts: n1
// the manager, n2 and n3 joined with the worker token, all Ready) and, with a reference, the
// reference as its one-node swarm (bench/reference-swarm.ts); or berth's alone, of any size
// (berthSwarm), for the figures the reference can't take. No registry is reachable, so every
// node has the tests' busybox loaded under both SERVICE_IMAGES tags; the reference gets the tags it
// lacks, and loses them again at the end. dockerd still tries a pull before each task's container
// (berth pulls only an image it lacks); here that fails at once, and the task runs the local image.
//
// Clean-up, by close() or by the session after Ctrl-C: every service removed and its containers
// waited for on every node (on berth they would outlive berthd under their conmons; on the
// reference an image still in use can't be removed), the images loaded into the reference
// removed, then the reference's swarm left and berth's nodes stopped.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { busyboxImageArchive } from '../test/helpers/busybox-image.js';
import type { ContainerEngine } from './container-engines.js';
import type { CliRun } from './docker-cli.js';
import type { EngineApi } from './engine-api.js';
import type { BenchContext } from './figure.js';
import { referenceSwarmHost, type ReferenceSwarmHost } from './reference-swarm.js';
import { startSwarmNodes, type SwarmNode } from './swarm-nodes.js';

/** The tests' busybox under two tags: a service's image, and the one an update moves it to. */
export const SERVICE_IMAGES = ['busybox:bench-service-1', 'busybox:bench-service-2'] as const;
/** how often the timed waits look */
export const POLL_MS = 20;
/** how often the untimed waits look: gentler on the engines between rounds */
const SETTLE_POLL_MS = 100;
const WORKERS = 2;
const READY_TIMEOUT_MS = 60_000;
const GONE_TIMEOUT_MS = 60_000;
const TASK_LABEL = 'com.docker.swarm.service.id';

export interface ServiceSwarm extends ContainerEngine {
  /** The docker CLI against the manager, timed. */
  docker(args: string[]): Promise<CliRun>;
  /** Every node's API, the manager's first: where the tasks' containers are. */
  nodes: EngineApi[];
}

export interface ServiceSwarms {
  swarms: ServiceSwarm[];
  /** The swarms, for a row's note: also why the figure goes without the reference, when there is one. */
  description: string;
  close(): Promise<void>;
}

interface TaskJson {
  DesiredState: string;
  Spec: { ContainerSpec: { Image: string } };
  Status: { State: string; Err?: string };
}

/** berth's three nodes and the reference, each a swarm with both images on every node. */
export async function serviceSwarms(ctx: BenchContext, label: string): Promise<ServiceSwarms> {
  const archives = await Promise.all(SERVICE_IMAGES.map((tag) => busyboxImageArchive(tag)));
  const berth = await startSwarmNodes(ctx, label, 1 + WORKERS);
  let host: Awaited<ReturnType<typeof referenceSwarmHost>>;
  try {
    host = await referenceSwarmHost(ctx, ctx.makeDir(`${label}-docker-config`));
  } catch (err) {
    await berth.close();
    throw err;
  }
  const reference: ReferenceSwarmHost | null = host !== null && 'engine' in host ? host : null;
  const swarms: ServiceSwarm[] = [];
  const loadedIntoReference: string[] = [];
  let closing: Promise<void> | undefined;
  const close = async () => {
    try {
      for (const swarm of swarms) await removeServices(swarm);
      for (const tag of loadedIntoReference) await reference?.engine.api.call('DELETE', `/images/${tag}`, [200]);
    } finally {
      await reference?.close();
      await berth.close();
    }
  };
  // registered after the reference's leave and berth's stop, so that the session runs it before them
  const takeBack = ctx.atClose(() => (closing ??= close()));
  try {
    swarms.push(await formSwarm(berth.nodes, archives));
    if (reference !== null) {
      const { api } = reference.engine;
      for (const [i, tag] of SERVICE_IMAGES.entries()) {
        if ((await api.call('GET', `/images/${tag}/json`, [200, 404])).status === 200) continue;
        await api.call('POST', '/images/load?quiet=1', [200], archives[i]);
        loadedIntoReference.push(tag);
      }
      await reference.docker(['swarm', 'init', '--advertise-addr', reference.advertiseAddr]);
      swarms.push({ ...reference.engine, docker: reference.docker, nodes: [api] });
    }
  } catch (err) {
    takeBack();
    await (closing ??= close());
    throw err;
  }
  const skipped = host !== null && 'skipped' in host ? host.skipped : undefined;
  if (skipped !== undefined) ctx.progress(skipped);
  const onReference = reference !== null ? '; the reference: its one-node swarm, each task trying a pull first, which fails at once (no registry is reachable)' : skipped !== undefined ? `; ${skipped}` : '';
  return {
    swarms,
    description: `berth: 3 nodes (1 manager, 2 workers)${onReference}`,
    close() {
      takeBack();
      return (closing ??= close());
    },
  };
}

export interface BerthSwarm {
  /** the swarm, at n1 */
  swarm: ServiceSwarm;
  nodes: SwarmNode[];
  /** Every service removed and its containers gone, then the nodes stopped; what the session does after Ctrl-C. */
  close(): Promise<void>;
}

/** berth alone, for the figures the reference can't take: `count` nodes, n1 the manager, both images on every node. */
export async function berthSwarm(ctx: BenchContext, label: string, count: number): Promise<BerthSwarm> {
  const archives = await Promise.all(SERVICE_IMAGES.map((tag) => busyboxImageArchive(tag)));
  const berth = await startSwarmNodes(ctx, label, count);
  let swarm: ServiceSwarm | undefined;
  let closing: Promise<void> | undefined;
  const close = async () => {
    try {
      if (swarm !== undefined) await removeServices(swarm);
    } finally {
      await berth.close();
    }
  };
  // registered after berth's stop, so that the session runs it before
  const takeBack = ctx.atClose(() => (closing ??= close()));
  try {
    swarm = await formSwarm(berth.nodes, archives);
  } catch (err) {
    takeBack();
    await (closing ??= close());
    throw err;
  }
  return {
    swarm,
    nodes: berth.nodes,
    close() {
      takeBack();
      return (closing ??= close());
    },
  };
}

/** The nodes made one swarm: the images loaded on each, n1 the manager, the others joined as workers, all Ready. */
async function formSwarm(nodes: SwarmNode[], archives: readonly Buffer[]): Promise<ServiceSwarm> {
  const [manager, ...workers] = nodes;
  for (const node of nodes) for (const archive of archives) await node.api.call('POST', '/images/load?quiet=1', [200], archive);
  await manager.docker(['swarm', 'init', '--advertise-addr', manager.addr]);
  const token = (await manager.docker(['swarm', 'join-token', '-q', 'worker'])).stdout.trim();
  for (const worker of workers) await worker.docker(['swarm', 'join', '--token', token, '--advertise-addr', worker.addr, `${manager.addr}:2377`]);
  await untilNodesReady(manager.api, nodes.length);
  return {
    name: 'berth',
    socket: manager.berthd.socket,
    api: manager.api,
    netns: manager.berthd.netns,
    assertRunning: () => nodes.forEach((n) => n.berthd.assertRunning()),
    docker: manager.docker,
    nodes: nodes.map((n) => n.api),
  };
}

/** The service's ID from `docker service create --detach`, which prints only that. */
export function createdServiceId(run: CliRun): string {
  const id = run.stdout.trim();
  if (!/^[a-z0-9]+$/.test(id)) throw new Error(`docker service create printed ${JSON.stringify(run.stdout)}, not a service ID`);
  return id;
}

/** Polls the manager's tasks of the service every POLL_MS until `replicas` of them run `image` (as given, or pinned to a digest). */
export async function untilRunning(swarm: ServiceSwarm, serviceId: string, replicas: number, image: string, timeoutMs: number): Promise<void> {
  const query = encodeURIComponent(JSON.stringify({ service: [serviceId] }));
  const deadlineMs = performance.now() + timeoutMs;
  for (;;) {
    const tasks = JSON.parse((await swarm.api.call('GET', `/tasks?filters=${query}`, [200])).text) as TaskJson[];
    const running = tasks.filter((t) => t.DesiredState === 'running' && t.Status.State === 'running' && t.Spec.ContainerSpec.Image.startsWith(image));
    if (running.length === replicas) return;
    if (performance.now() > deadlineMs) {
      const states = tasks.map((t) => `${t.Spec.ContainerSpec.Image} ${t.DesiredState}/${t.Status.State}${t.Status.Err ? ` (${t.Status.Err})` : ''}`);
      throw new Error(`${swarm.name}: ${running.length} of ${replicas} tasks of ${serviceId} running ${image} after ${timeoutMs} ms; its tasks: ${states.join(', ')}`);
    }
    await sleep(POLL_MS);
  }
}

/** Removes the service and waits until its containers are gone from every node. */
export async function removeService(swarm: ServiceSwarm, serviceId: string): Promise<void> {
  await swarm.api.call('DELETE', `/services/${serviceId}`, [200]);
  await untilContainersGone(swarm, `${TASK_LABEL}=${serviceId}`);
}

async function removeServices(swarm: ServiceSwarm): Promise<void> {
  const services = JSON.parse((await swarm.api.call('GET', '/services', [200])).text) as Array<{ ID: string }>;
  // 404: removed meanwhile
  for (const { ID } of services) await swarm.api.call('DELETE', `/services/${ID}`, [200, 404]);
  await untilContainersGone(swarm, TASK_LABEL);
}

/** Waits until no node has a container with the label (`key` or `key=value`). */
async function untilContainersGone(swarm: ServiceSwarm, label: string): Promise<void> {
  const query = encodeURIComponent(JSON.stringify({ label: [label] }));
  const deadlineMs = performance.now() + GONE_TIMEOUT_MS;
  for (;;) {
    let left = 0;
    for (const node of swarm.nodes) left += (JSON.parse((await node.call('GET', `/containers/json?all=1&filters=${query}`, [200])).text) as unknown[]).length;
    if (left === 0) return;
    if (performance.now() > deadlineMs) throw new Error(`${swarm.name}: ${left} containers labelled ${label} still there ${GONE_TIMEOUT_MS} ms after their service's removal`);
    await sleep(SETTLE_POLL_MS);
  }
}

async function untilNodesReady(api: EngineApi, count: number): Promise<void> {
  const deadlineMs = performance.now() + READY_TIMEOUT_MS;
  for (;;) {
    const nodes = JSON.parse((await api.call('GET', '/nodes', [200])).text) as Array<{ Status: { State: string } }>;
    const ready = nodes.filter((n) => n.Status.State === 'ready').length;
    if (ready === count) return;
    if (performance.now() > deadlineMs) throw new Error(`berth's manager lists ${ready} of ${count} nodes Ready after ${READY_TIMEOUT_MS} ms`);
    await sleep(SETTLE_POLL_MS);
  }
}
