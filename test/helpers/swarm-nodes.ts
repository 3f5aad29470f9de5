// Several berthd nodes on one machine, for the swarm's tests (docs: design/swarm.md §3). The
// underlay is a Linux bridge (the "switch") alone in a namespace of its own; each node is a
// namespace joined to it by a veth pair, with an address from a private test range on that link
// only (on-link, no default route), and a berthd of its own in there: its own data root, exec root
// (so its own runc root and conmon files) and socket, all under one folder of the swarm's, and its
// own parent cgroup for its containers (/<the folder's name>/nK, removed at teardown).
//
// Shared between the nodes: the host's /etc/resolv.conf, plugin and certs.d folders, which berthd
// only reads.
// The nodes share the test's mount namespace, so that their mounts stay visible to the sweep below.
//
// Teardown: close() stops each berthd, then sweeps what its containers left and removes the
// namespaces, which takes the veths and the bridge with them. The same sweep runs when the test
// process exits or is stopped by a signal, before the other helpers' clean-ups (which would delete
// the runc state the sweep needs and unmount the namespaces it looks for).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Berthd } from './berthd.js';
import { sweep } from './containers.js';
import { dockerCli, type CliResult } from './docker-cli.js';
import type { RawResponse, RequestOptions } from './http.js';
import { mountsUnder } from './leftovers.js';
import { createTestNetns, execIn, removeTestNetns } from './netns.js';
import { until } from './until.js';

export interface SwarmNodesOptions {
  /** The underlay's subnet; node K gets host address K in it. 10.213.0.0/24 by default. */
  subnet?: string;
  /** Extra berthd flags of a node, given its name and address (the swarm's --advertise-addr...). */
  args?: (node: SwarmNode) => string[];
}

export interface NetemOptions {
  delayMs?: number;
  lossPercent?: number;
}

/** What is left of a swarm after close(): every list empty when nothing is. */
export interface SwarmRemains {
  folder: string[];
  mounts: string[];
  netnsFiles: string[];
  /** pids still in one of the swarm's namespaces, or whose command line names its folder */
  processes: number[];
}

/** Host addresses of a subnet, as node K's: 10.213.0.0/24 → 10.213.0.K */
function hostAddress(subnet: string, k: number): { addr: string; cidr: string } {
  const [base, bits] = subnet.split('/');
  const n = base.split('.').reduce((acc, octet) => acc * 256 + Number(octet), 0) + k;
  const addr = [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
  return { addr, cidr: `${addr}/${bits}` };
}

/** The inode of a namespace file: what /proc/<pid>/ns/net shows as net:[inode] for a process inside. */
function netnsInode(file: string): number {
  return statSync(file).ino;
}

/** Live processes in one of those namespaces (a zombie has left its namespaces already). */
function pidsIn(inodes: ReadonlySet<number>): number[] {
  const pids: number[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const m = /^net:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/ns/net`));
      if (m && inodes.has(Number(m[1]))) pids.push(Number(pid));
    } catch {
      // gone, or a zombie
    }
  }
  return pids;
}

function pidsNaming(dir: string): number[] {
  const pids: number[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (Number(pid) !== process.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir)) pids.push(Number(pid));
    } catch {
      // gone
    }
  }
  return pids;
}

/** The processes of a cgroup and those under it. */
function procsUnder(dir: string): number[] {
  if (!existsSync(dir)) return [];
  const here = existsSync(path.join(dir, 'cgroup.procs')) ? readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter((l) => l !== '').map(Number) : [];
  const below = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).flatMap((e) => procsUnder(path.join(dir, e.name)));
  return [...here, ...below];
}

function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

export class SwarmNode {
  readonly index: number;
  /** n1, n2…: its namespace's and its switch port's name */
  readonly name: string;
  /** its underlay address (10.213.0.K), on eth0 in its namespace */
  readonly addr: string;
  readonly netns: string;
  readonly dir: string;
  readonly dataRoot: string;
  readonly execRoot: string;
  readonly socket: string;
  /** For the docker CLI (dockerCli's env): the node's socket, and a client config folder of its own. */
  readonly dockerEnv: { DOCKER_HOST: string; DOCKER_CONFIG: string };
  /** the parent cgroup of its containers, in every hierarchy */
  readonly cgroupParent: string;
  private current: Berthd | undefined;
  private readonly baseArgs: (node: SwarmNode) => string[];
  private args: string[] | undefined;

  constructor(index: number, addr: string, netns: string, folder: string, args: (node: SwarmNode) => string[]) {
    this.index = index;
    this.name = `n${index}`;
    this.addr = addr;
    this.netns = netns;
    this.dir = path.join(folder, this.name);
    this.dataRoot = path.join(this.dir, 'root');
    // under dir/exec, the layout containers.ts's sweep knows (its runc root is <exec root>/runc)
    this.execRoot = path.join(this.dir, 'exec');
    this.socket = path.join(this.dir, 'berth.sock');
    this.dockerEnv = { DOCKER_HOST: `unix://${this.socket}`, DOCKER_CONFIG: path.join(this.dir, 'docker-config') };
    this.cgroupParent = `/${path.basename(folder)}/${this.name}`;
    this.baseArgs = args;
  }

  /** The berthd started last (running or not). */
  get berthd(): Berthd {
    if (this.current === undefined) throw new Error(`${this.name}: berthd never started`);
    return this.current;
  }

  /** berthd's pid (nsenter and bin/berthd exec it: the process spawned is berthd). */
  get pid(): number {
    const pid = this.berthd.proc.pid;
    if (pid === undefined) throw new Error(`${this.name}: berthd did not spawn`);
    return pid;
  }

  get running(): boolean {
    return this.current !== undefined && this.current.proc.exitCode === null && this.current.proc.signalCode === null;
  }

  /**
   * Starts berthd on the node's roots, socket and namespace, and waits until it answers /_ping.
   * `args` replaces the swarm's extra flags for this start (and the next ones).
   */
  async start(opts: { args?: string[] } = {}): Promise<void> {
    if (this.running) throw new Error(`${this.name}: berthd is running already`);
    this.args = opts.args ?? this.args ?? this.baseArgs(this);
    this.current = Berthd.spawn({ netns: this.netns, dataRoot: this.dataRoot, execRoot: this.execRoot, socket: this.socket, args: ['--cgroup-parent', this.cgroupParent, ...this.args] });
    await this.current.waitReady();
  }

  /** SIGTERM, then SIGKILL after Berthd's limit; fails when berthd logged errors it should not have. */
  async stop(): Promise<void> {
    if (this.current === undefined) return;
    const d = this.current;
    try {
      await d.stop();
    } finally {
      // its pidfile and daemon.json; the roots stay for the next start
      rmSync(d.dir, { recursive: true, force: true });
    }
  }

  /** kill -9 of berthd (its containers and conmons live on, as after a crash); the pid killed. */
  async kill(): Promise<number> {
    const pid = this.pid;
    await this.berthd.stop('SIGKILL');
    return pid;
  }

  /** A stop (or nothing, after a kill) and a start on the same roots, socket and namespace. */
  async restart(opts: { args?: string[] } = {}): Promise<void> {
    await this.stop();
    await this.start(opts);
  }

  /** Kills what runs for the node besides berthd, as a machine that went down would: its containers (its cgroups' processes) and their conmons. */
  killContainers(): void {
    const inCgroups: number[] = [];
    for (const hierarchy of existsSync('/sys/fs/cgroup') ? readdirSync('/sys/fs/cgroup') : []) inCgroups.push(...procsUnder(path.join('/sys/fs/cgroup', hierarchy, this.cgroupParent)));
    const berthd = this.running ? this.pid : undefined;
    killAll([...new Set([...inCgroups, ...pidsNaming(this.dir)])].filter((pid) => pid !== berthd));
  }

  request(method: string, urlPath: string, opts: RequestOptions = {}): Promise<RawResponse> {
    return this.berthd.request(method, urlPath, opts);
  }

  docker(args: string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<CliResult> {
    return dockerCli(args, { ...opts, env: this.dockerEnv });
  }

  /** `file args` in the node's namespace, to its end: its stdout (throws with stderr on failure). */
  exec(file: string, args: readonly string[] = [], opts: { input?: string; timeoutMs?: number } = {}): string {
    return execIn(this.netns, file, args, opts);
  }
}

const open = new Set<SwarmNodes>();
let sequence = 0;

export class SwarmNodes {
  readonly nodes: SwarmNode[] = [];
  /** the namespace of the switch (bridge sw0, ports n1…nN) */
  readonly switchNetns: string;
  readonly folder: string;
  private readonly inodes = new Set<number>();
  private readonly netnsFiles: string[] = [];
  /** the raw table rules isolate() added in each node, for heal() to delete exactly those */
  private readonly isolation = new Map<SwarmNode, string[][]>();

  constructor(count: number, opts: SwarmNodesOptions) {
    open.add(this);
    const id = `swarm${++sequence}`;
    // short: an attach socket is <exec root>/s/<64 hex>/attach, and sun_path holds 107 bytes
    this.folder = mkdtempSync(path.join(os.tmpdir(), 'bsw-'));
    try {
      this.switchNetns = this.namespace(`${id}-switch`);
      execIn(this.switchNetns, 'ip', ['link', 'add', 'sw0', 'type', 'bridge']);
      execIn(this.switchNetns, 'ip', ['link', 'set', 'sw0', 'up']);
      for (let k = 1; k <= count; k++) {
        const { addr, cidr } = hostAddress(opts.subnet ?? '10.213.0.0/24', k);
        const node = new SwarmNode(k, addr, this.namespace(`${id}-n${k}`), this.folder, opts.args ?? (() => []));
        this.nodes.push(node);
        mkdirSync(node.dir);
        execIn(this.switchNetns, 'ip', ['link', 'add', node.name, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', node.netns]);
        execIn(this.switchNetns, 'ip', ['link', 'set', node.name, 'master', 'sw0', 'up']);
        node.exec('ip', ['addr', 'add', cidr, 'dev', 'eth0']);
        node.exec('ip', ['link', 'set', 'eth0', 'up']);
      }
    } catch (err) {
      this.sweep();
      throw err;
    }
  }

  private namespace(name: string): string {
    const file = createTestNetns(name);
    this.netnsFiles.push(file);
    this.inodes.add(netnsInode(file));
    return file;
  }

  /**
   * Cuts `node` off from `fromNodes` (every other node by default), both ways, with DROP rules in
   * its namespace's raw table: raw sees every packet before conntrack and before berth's own NAT
   * and filter rules (which never touch it), so forwarded traffic (published ports, containers
   * talking to other nodes) is cut too, not only the node's own sockets as INPUT/OUTPUT would.
   */
  isolate(node: SwarmNode, fromNodes: SwarmNode[] = this.nodes): void {
    const rules = this.isolation.get(node) ?? [];
    this.isolation.set(node, rules);
    for (const other of fromNodes.filter((n) => n !== node)) {
      for (const rule of [['PREROUTING', '-s', other.addr], ['PREROUTING', '-d', other.addr], ['OUTPUT', '-d', other.addr]]) {
        if (rules.some((r) => r.join(' ') === rule.join(' '))) continue;
        node.exec('iptables', ['-w', '-t', 'raw', '-I', ...rule, '-j', 'DROP']);
        rules.push(rule);
      }
    }
  }

  /** Deletes the rules isolate() added in `node`, and only those. */
  heal(node: SwarmNode): void {
    for (const rule of this.isolation.get(node) ?? []) node.exec('iptables', ['-w', '-t', 'raw', '-D', ...rule, '-j', 'DROP']);
    this.isolation.delete(node);
  }

  /** Whether this kernel has netem (sch_netem); tried on the switch namespace's loopback. */
  netemAvailable(): boolean {
    try {
      execIn(this.switchNetns, 'tc', ['qdisc', 'add', 'dev', 'lo', 'root', 'netem', 'delay', '1ms']);
      execIn(this.switchNetns, 'tc', ['qdisc', 'del', 'dev', 'lo', 'root']);
      return true;
    } catch {
      return false;
    }
  }

  /** Delay and loss on what `node` sends on the underlay (netem on its eth0); undefined removes them. */
  netem(node: SwarmNode, opts: NetemOptions | undefined): void {
    if (opts === undefined) {
      node.exec('tc', ['qdisc', 'del', 'dev', 'eth0', 'root']);
      return;
    }
    const args = [...(opts.delayMs ? ['delay', `${opts.delayMs}ms`] : []), ...(opts.lossPercent ? ['loss', `${opts.lossPercent}%`] : [])];
    node.exec('tc', ['qdisc', 'replace', 'dev', 'eth0', 'root', 'netem', ...args]);
  }

  /**
   * Stops every berthd, then removes everything: containers, mounts, processes, namespaces (their
   * veths and the bridge go with them) and the folder. Throws the first berthd's failure to stop
   * cleanly (its logged errors), after the teardown.
   */
  async close(): Promise<void> {
    const failures = await Promise.allSettled(this.nodes.map((n) => n.stop()));
    this.sweep();
    // a killed process leaves its namespace when it is gone, a moment after the signal
    await until('the swarm processes to end', () => this.remains().processes, (pids) => pids.length === 0, 10_000);
    const failed = failures.find((f): f is PromiseRejectedResult => f.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /**
   * Synchronous, for exit too: what runs is killed, runc's containers deleted, mounts undone,
   * namespaces and folder removed. A step that fails does not keep the others from running.
   */
  sweep(): void {
    open.delete(this);
    const errors: unknown[] = [];
    const attempt = (step: () => void): void => {
      try {
        step();
      } catch (err) {
        errors.push(err);
      }
    };
    // berthd, conmons, log pipe keepers; runc's containers (from <exec root>/runc); mounts under the node's folder
    for (const node of this.nodes) attempt(() => sweep(node.dir));
    // anything else in there (a container on the node's network, a process a test started): a
    // namespace goes when nothing is left in it
    attempt(() => killAll(pidsIn(this.inodes)));
    for (const file of this.netnsFiles) attempt(() => removeTestNetns(file));
    // the nodes' parent cgroups, empty once their containers are gone
    for (const hierarchy of existsSync('/sys/fs/cgroup') ? readdirSync('/sys/fs/cgroup') : []) {
      const top = path.join('/sys/fs/cgroup', hierarchy, path.basename(this.folder));
      for (const node of this.nodes) attempt(() => rmdirIfThere(path.join('/sys/fs/cgroup', hierarchy, node.cgroupParent)));
      attempt(() => rmdirIfThere(top));
    }
    attempt(() => rmSync(this.folder, { recursive: true, force: true }));
    if (errors.length > 0) throw errors[0];
  }

  /** What of the swarm is left: after close(), nothing. */
  remains(): SwarmRemains {
    return {
      folder: existsSync(this.folder) ? [this.folder] : [],
      mounts: [...mountsUnder(this.folder), ...this.netnsFiles.flatMap((f) => mountsUnder(f))],
      netnsFiles: this.netnsFiles.filter((f) => existsSync(f)),
      processes: [...new Set([...pidsIn(this.inodes), ...pidsNaming(this.folder)])].sort((a, b) => a - b),
    };
  }
}

/**
 * `count` nodes n1…nN on a fresh underlay, each with its berthd answering; torn down again if any
 * fails to start.
 */
export async function startSwarmNodes(count: number, opts: SwarmNodesOptions = {}): Promise<SwarmNodes> {
  const swarm = new SwarmNodes(count, opts);
  try {
    await Promise.all(swarm.nodes.map((n) => n.start()));
  } catch (err) {
    await swarm.close().catch(() => undefined);
    throw err;
  }
  return swarm;
}

function rmdirIfThere(dir: string): void {
  if (existsSync(dir)) rmdirSync(dir);
}

function sweepOpen(): void {
  for (const swarm of open) {
    try {
      swarm.sweep();
    } catch (err) {
      // and on to the other helpers' clean-ups, which a throw here would skip
      console.error(`swarm-nodes: tearing down ${swarm.folder} failed:`, err);
    }
  }
}
// before berthd.ts's and netns.ts's own clean-ups (registered when they were imported, above)
process.prependListener('exit', sweepOpen);
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.prependListener(signal, sweepOpen);
