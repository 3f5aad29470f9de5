// The daemon under the workload: a berthd in a network namespace of its own (with an empty plugins
// folder), the tests' busybox, and a real registry (Debian's docker-registry) on loopback in that
// namespace holding two images per client to pull. Restarts reuse the first daemon's data root,
// exec root, socket and namespace, as a supervisor restarting a crashed berthd would.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Berthd, tempDir } from '../helpers/berthd.js';
import { busyboxLayer, loadBusybox } from '../helpers/busybox-image.js';
import { startRegistry, type Registry } from '../helpers/registry.js';
import { filesLayer, imageOf, pushDirect } from '../helpers/registry-images.js';

export interface Pullable {
  /** host:port/crash/cN:vK */
  ref: string;
  tag: string;
  id: string;
}

export interface CrashTarget {
  d: Berthd;
  /** the first daemon's folder: the data and exec roots are in it, and conmons' command lines name it */
  base: string;
  dataRoot: string;
  execRoot: string;
  socket: string;
  netns: string;
  registry: Registry;
  pullable: Map<number, Pullable[]>;
  busyboxId: string;
  /** where GET /metrics listens inside the namespace, when asked for */
  metricsAddr?: string;
  args: string[];
  config: Record<string, unknown>;
  /** daemons started so far (1 + restarts) */
  starts: number;
}

export async function startTarget(opts: { clients: number; metricsAddr?: string; cpuProfileDir?: string }): Promise<CrashTarget> {
  const pluginsDir = tempDir('berth-crash-plugins-');
  const args = ['--plugins-dir', pluginsDir];
  const config = opts.metricsAddr === undefined ? {} : { 'metrics-addr': opts.metricsAddr };
  // the profile is written when berthd exits (the soak's clean stop)
  const env = opts.cpuProfileDir === undefined ? undefined : { NODE_OPTIONS: `--import ${fileURLToPath(new URL('./cpu-profile-preload.js', import.meta.url))}`, BERTH_CPU_PROFILE_DIR: opts.cpuProfileDir };
  const d = await Berthd.start({ netns: 'own', args, config, env });
  const busyboxId = await loadBusybox(d);
  const netns = d.netns!;
  const registry = await startRegistry({ netns });
  const pullable = new Map<number, Pullable[]>();
  const base = await busyboxLayer();
  for (let i = 0; i < opts.clients; i++) {
    const images: Pullable[] = [];
    for (const tag of ['v1', 'v2']) {
      const image = imageOf([base, await filesLayer({ [`crash/pulled-${i}-${tag}.txt`]: `client ${i} ${tag}\n` })], { labels: { 'berth.crash': `c${i}-${tag}` } });
      await pushDirect(registry, `crash/c${i}`, tag, image);
      images.push({ ref: `${registry.host}/crash/c${i}:${tag}`, tag, id: image.id });
    }
    pullable.set(i, images);
  }
  return { d, base: d.dir, dataRoot: d.dataRoot, execRoot: path.join(d.dir, 'exec'), socket: d.socket, netns, registry, pullable, busyboxId, metricsAddr: opts.metricsAddr, args, config, starts: 1 };
}

/** kill -9, then waits until the process is gone (reaped: it is our child). */
export async function killDaemon(t: CrashTarget): Promise<void> {
  if (t.d.proc.exitCode === null && t.d.proc.signalCode === null) t.d.proc.kill('SIGKILL');
  await t.d.exited;
}

/** A new berthd on the same roots, socket and namespace; resolves once it answers /_ping. */
export async function restartDaemon(t: CrashTarget): Promise<void> {
  t.d = await Berthd.start({ dataRoot: t.dataRoot, execRoot: t.execRoot, socket: t.socket, netns: t.netns, args: t.args, config: t.config });
  t.starts++;
}

export function daemonUp(t: CrashTarget): boolean {
  return t.d.proc.exitCode === null && t.d.proc.signalCode === null;
}
