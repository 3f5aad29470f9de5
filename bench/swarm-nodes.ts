// Several berthds as the nodes of a swarm, for the swarm figures: the bench's side of
// test/helpers/swarm-nodes.ts, on the session's berthds rather than the tests' (whose stop fails on
// logged errors and whose exit and signal handlers would race the session's clean-up). The underlay
// is a Linux bridge alone in a namespace of its own (the "switch"); each node is a berthd in the
// namespace the session gives it, joined to the switch by a veth pair (eth0 inside), with an
// address of a private range on that link only, and flags of its own: --cgroup-parent
// /<the swarm's folder>/nK (the session gives the data root, exec root and socket).
//
// Teardown, by close() or by the session at the end of an interrupted run: every berthd stopped
// (the session then removes its namespace, which takes the veth along), the switch's namespace
// removed (with the bridge), the nodes' parent cgroups removed if a container made them.
import { existsSync, readdirSync, rmdirSync } from 'node:fs';
import path from 'node:path';
import type { BerthdProcess } from './berthd-process.js';
import { docker, type CliRun } from './docker-cli.js';
import { EngineApi } from './engine-api.js';
import type { BenchContext } from './figure.js';
import { createNetns, execIn, removeNetns } from './netns.js';

/** node K gets 10.214.0.K: no network of berth's or Docker's defaults is there */
const SUBNET_PREFIX = '10.214.0.';
const SUBNET_BITS = 24;
const CGROUP_ROOT = '/sys/fs/cgroup';

export interface SwarmNode {
  /** n1, n2…: its switch port's name */
  name: string;
  /** its underlay address, on eth0 in its namespace */
  addr: string;
  berthd: BerthdProcess;
  api: EngineApi;
  /** The docker CLI against the node, timed. */
  docker(args: string[]): Promise<CliRun>;
}

export interface SwarmNodes {
  nodes: SwarmNode[];
  /** Stops every node and removes the underlay; the same clean-up the session runs if the figure stops first. */
  close(): Promise<void>;
}

/** `count` nodes n1…nN on a fresh underlay, each berthd answering /_ping; all torn down again if one fails to start. */
export async function startSwarmNodes(ctx: BenchContext, label: string, count: number): Promise<SwarmNodes> {
  const dir = ctx.makeDir(label);
  const configDir = ctx.makeDir(`${label}-docker-config`);
  const nodes: SwarmNode[] = [];
  const cgroupParents: string[] = [];
  let switchNetns: string | undefined;
  let closing: Promise<void> | undefined;
  const close = async () => {
    for (const n of nodes) n.api.close();
    // workers first would be kinder to the managers, but no figure needs the swarm to survive this
    await Promise.allSettled(nodes.map((n) => n.berthd.stop()));
    if (switchNetns !== undefined) removeNetns(switchNetns);
    removeCgroups(cgroupParents);
  };
  const takeBack = ctx.atClose(() => (closing ??= close()));
  try {
    switchNetns = createNetns(path.join(dir, 'switch.netns'));
    execIn(switchNetns, 'ip', ['link', 'add', 'sw0', 'type', 'bridge']);
    execIn(switchNetns, 'ip', ['link', 'set', 'sw0', 'up']);
    for (let k = 1; k <= count; k++) {
      const name = `n${k}`;
      const addr = `${SUBNET_PREFIX}${k}`;
      const cgroupParent = `/${path.basename(dir)}/${name}`;
      cgroupParents.push(cgroupParent);
      // berthd reads the node's addresses only at swarm init or join: its link is added while it starts
      const berthd = ctx.spawnBerthd(`${label}-${name}`, ['--cgroup-parent', cgroupParent]);
      nodes.push({ name, addr, berthd, api: new EngineApi(berthd.socket), docker: (args) => docker(berthd.socket, configDir, args) });
      execIn(switchNetns, 'ip', ['link', 'add', name, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', berthd.netns]);
      execIn(switchNetns, 'ip', ['link', 'set', name, 'master', 'sw0', 'up']);
      execIn(berthd.netns, 'ip', ['addr', 'add', `${addr}/${SUBNET_BITS}`, 'dev', 'eth0']);
      execIn(berthd.netns, 'ip', ['link', 'set', 'eth0', 'up']);
    }
    await Promise.all(nodes.map((n) => n.berthd.waitServing()));
  } catch (err) {
    takeBack();
    await (closing ??= close());
    throw err;
  }
  return {
    nodes,
    close() {
      takeBack();
      return (closing ??= close());
    },
  };
}

/** The nodes' parent cgroups in every hierarchy, then their common parent, where a container made them (empty once berthd has removed its containers). */
function removeCgroups(cgroupParents: readonly string[]): void {
  if (!existsSync(CGROUP_ROOT)) return;
  const tops = new Set(cgroupParents.map((p) => path.dirname(p)));
  for (const hierarchy of readdirSync(CGROUP_ROOT)) {
    for (const cgroup of [...cgroupParents, ...tops]) {
      const dir = path.join(CGROUP_ROOT, hierarchy, cgroup);
      if (existsSync(dir)) rmdirSync(dir);
    }
  }
}
