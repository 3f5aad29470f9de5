// The runtime side of a container's runs: mounting its root filesystem, writing its OCI bundle,
// starting it under conmon, signalling it, noticing its end (conmon's exit file, or conmon gone),
// and clearing what a run leaves (runc's state, the mount). It keeps no state of its own beyond
// the exit watches: the facts live in files conmon and runc write.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { RootfsStore } from '../rootfs/rootfs-store.js';
import { isConmonAlive, resizeTerminal, startUnderConmon, ContainerStartError } from '../runtime/conmon.js';
import { watchConmonExit, type LostRun } from '../runtime/conmon-exit.js';
import { readExitFile, removeExitFiles, type ExitRecord } from '../runtime/exit-files.js';
import type { OciSpec } from '../runtime/oci-spec.js';
import type { Runc } from '../runtime/runc.js';
import { translateRuntimeError } from '../runtime/runtime-errors.js';
import { logWriting, openLogForwarder, type LogForwarder } from './logs/log-drivers.js';
import { makeLogPipe, releaseLogPipe, sweepLogKeepers } from '../runtime/log-pipe.js';
import type { ContainerPaths } from './container-paths.js';
import { buildContainerSpec } from './spec/build-spec.js';
import { HOSTS_FILE, withoutLinkHosts } from './spec/etc-files.js';
import type { ContainerLookup } from './spec/namespaces.js';
import type { ContainerNetworks } from './container-networks.js';
import { volumeMountsOf, type ContainerVolumes } from './container-volumes.js';
import type { NetworkAttachment } from '../network/network-attachments.js';
import type { LinkedContainer } from './container-links.js';
import { networkedContainer } from './networked-container.js';
import { isMountPoint } from '../runtime/mount-table.js';
import { unmountShm } from './spec/shm.js';
import { removeTaskFiles, sweepTaskFiles } from './task-files.js';
import { bundleCgroupsPath, containerCgroup, isFrozen } from './stats/container-cgroup.js';
import type { ContainerRecord } from './container-record.js';

export interface RunHandle {
  conmonPid: number;
  pid: number;
  /** the syslog driver's connection, dialled at the start, for the run's log drain */
  logForwarder?: LogForwarder;
}

export interface ContainerRunnerOptions {
  paths: ContainerPaths;
  rootfs: RootfsStore;
  runc: Runc;
  /** runc's absolute path: conmon executes it without a PATH search */
  runcPath: string;
  log: Logger;
  /** other containers, for container:<id> network, IPC and PID modes */
  lookup: ContainerLookup;
  /** the legacy links' children of a container about to start (container-links.ts) */
  links: (record: ContainerRecord) => LinkedContainer[];
  networks: ContainerNetworks;
  volumes: Pick<ContainerVolumes, 'mountFor' | 'unmountFor'>;
  /** the parent cgroup of containers that name none; the default's when undefined */
  cgroupParent?: string;
}

export type { LostRun };

export class ContainerRunner {
  private readonly opts: ContainerRunnerOptions;

  constructor(opts: ContainerRunnerOptions) {
    this.opts = opts;
    for (const dir of [opts.paths.bundlesRoot, opts.paths.exitDir, opts.paths.socketDir]) mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  /**
   * Starts a run: mounts the root filesystem and prepares the network, writes the bundle, has
   * conmon create the container while the network is plumbed, and starts it. On any failure,
   * everything it set up is undone before the error is thrown.
   */
  async launch(record: ContainerRecord): Promise<RunHandle> {
    const { paths, rootfs, runc } = this.opts;
    const id = record.id;
    const bundle = paths.bundle(id);
    let created = false;
    let plumbed: Promise<{ error: unknown } | undefined> | undefined;
    let logForwarder: LogForwarder | undefined;
    try {
      // the root filesystem, the volumes and the network's first half are made side by side; a failure of any undoes all
      const links = this.opts.links(record);
      const [mounted, volumeSources, wired] = await Promise.allSettled([rootfs.mount(id), this.opts.volumes.mountFor(id, volumeMountsOf(record)), this.prepareNetwork(record)]);
      for (const r of [mounted, volumeSources, wired]) if (r.status === 'rejected') throw r.reason;
      const rootfsPath = (mounted as PromiseFulfilledResult<string>).value;
      const sources = (volumeSources as PromiseFulfilledResult<Map<string, string>>).value;
      const spec = await buildContainerSpec({
        id,
        config: record.config,
        hostConfig: record.hostConfig,
        bareEnv: record.bareEnv,
        rootfsPath,
        containerDir: paths.dir(id),
        shmDir: paths.shmDir(id),
        // a plugin's volume is where its Mount said, this run
        mountPoints: record.mountPoints.map((m) => (m.Type === 'volume' && sources.has(m.Destination) ? { ...m, Source: sources.get(m.Destination) ?? m.Source } : m)),
        taskFiles: (record.taskFiles ?? []).map((f) => ({ source: path.join(paths.secretsDir(id), f.name), destination: f.target })),
        network: (wired as PromiseFulfilledResult<NetworkAttachment | undefined>).value,
        links,
        lookup: this.opts.lookup,
        cgroupParent: this.opts.cgroupParent,
      });
      rmSync(bundle, { recursive: true, force: true });
      mkdirSync(bundle, { recursive: true, mode: 0o700 });
      writeFileSync(path.join(bundle, 'config.json'), JSON.stringify(spec), { mode: 0o600 });
      await removeExitFiles({ exitDir: paths.exitDir, containerId: id, persistDir: paths.persistDir(id) });
      const terminal = record.config.Tty === true;
      // the plugins plumb the namespace while runc creates the container; its process starts after both
      plumbed = this.plumbNetwork(record).then(
        () => undefined,
        (error: unknown) => ({ error }),
      );
      // bad log options, and a syslog server that can't be reached, fail the start, as dockerd's logger does
      logForwarder = await openLogForwarder(logWriting(record, paths.log(record).logPath), this.opts.log);
      // conmon writes the output into the pipe berthd's log drain reads (log-pipe.ts)
      const logFifo = await makeLogPipe(bundle);
      const started = await startUnderConmon({
        containerId: id,
        name: record.name.slice(1),
        bundleDir: bundle,
        runtimePath: this.opts.runcPath,
        runtimeRoot: paths.runcRoot,
        runtimeLogPath: paths.runtimeLog(id),
        containerPidFile: paths.containerPidFile(id),
        conmonPidFile: paths.conmonPidFile(id),
        logPath: logFifo,
        exitDir: paths.exitDir,
        persistDir: paths.persistDir(id),
        socketDir: paths.socketDir,
        terminal,
        stdin: record.config.OpenStdin === true,
        leaveStdinOpen: record.config.OpenStdin === true && record.config.StdinOnce !== true,
      });
      created = true;
      const failure = await plumbed;
      if (failure !== undefined) throw failure.error;
      await runc.start(id);
      return { conmonPid: started.conmonPid, pid: started.containerPid, logForwarder };
    } catch (err) {
      await logForwarder?.close();
      // the plugins' work is undone once it is over
      await plumbed;
      await this.clear(id, { killFirst: created }).catch((e: unknown) => this.opts.log.warn({ err: e, id }, 'clearing a failed start'));
      if (err instanceof ContainerStartError) throw translateRuntimeError('create', id, err.runtimeMessage);
      throw err;
    }
  }

  /** The OCI spec of the container's current run (exec instances start from it). */
  async spec(id: string): Promise<OciSpec> {
    return JSON.parse(await readFile(path.join(this.opts.paths.bundle(id), 'config.json'), 'utf8')) as OciSpec;
  }

  /** The run's namespace, addresses and ports, unless it joins another container's (namespaces.ts finds that one). */
  private prepareNetwork(record: ContainerRecord): Promise<NetworkAttachment | undefined> {
    if (joinsAnother(record)) return Promise.resolve(undefined);
    return this.opts.networks.prepare(networkedContainer(record));
  }

  private async plumbNetwork(record: ContainerRecord): Promise<void> {
    if (!joinsAnother(record)) await this.opts.networks.plumb(record.id);
  }

  /**
   * Resolves when the run ends: with conmon's exit record, or LostRun when conmon itself is gone
   * without one (killed). Stops watching when `signal` fires.
   */
  watchExit(id: string, conmonPid: number, signal: AbortSignal): Promise<ExitRecord | LostRun> {
    return watchConmonExit({ exitDir: this.opts.paths.exitDir, containerId: id, persistDir: this.opts.paths.persistDir(id) }, conmonPid, signal);
  }

  /** The exit conmon recorded for the current run, if it has ended. */
  readExit(id: string): Promise<ExitRecord | undefined> {
    return readExitFile({ exitDir: this.opts.paths.exitDir, containerId: id, persistDir: this.opts.paths.persistDir(id) });
  }

  conmonAlive(id: string, conmonPid: number): Promise<boolean> {
    return conmonPid > 0 ? isConmonAlive(conmonPid, id) : Promise.resolve(false);
  }

  signal(id: string, signal: string | number): Promise<void> {
    return this.opts.runc.kill(id, signal);
  }

  pause(id: string): Promise<void> {
    return this.opts.runc.pause(id);
  }

  resume(id: string): Promise<void> {
    return this.opts.runc.resume(id);
  }

  /** Whether the running container's processes are frozen (paused), from its cgroup's freezer; undefined when that cannot be told. */
  frozen(id: string): boolean | undefined {
    const cgroupsPath = bundleCgroupsPath(this.opts.paths.bundle(id));
    return cgroupsPath === undefined ? undefined : isFrozen(containerCgroup(cgroupsPath));
  }

  /** Changes a running container's cgroup limits (linux.resources' shape; zeros leave a limit as it is). */
  update(id: string, resources: Record<string, unknown>): Promise<void> {
    return this.opts.runc.update(id, resources);
  }

  resize(id: string, height: number, width: number): Promise<void> {
    return resizeTerminal(this.opts.paths.bundle(id), { height, width });
  }

  /** Takes removed links' lines out of a running container's /etc/hosts, rewritten in place (it is bind-mounted). */
  dropLinkHosts(id: string, aliases: readonly string[]): void {
    const file = path.join(this.opts.paths.dir(id), HOSTS_FILE);
    try {
      writeFileSync(file, withoutLinkHosts(readFileSync(file, 'utf8'), aliases));
    } catch (err) {
      this.opts.log.warn({ err, id }, 'taking removed links out of /etc/hosts');
    }
  }

  /**
   * Whether a container without a run has what a run makes: a bundle, runc's state, a mounted root
   * filesystem. A start the daemon's end cut short leaves them (its conmon and runc's container
   * may even have gone on without it), as does a copy's or a build step's mount of a stopped one.
   */
  async hasRunLeftovers(id: string): Promise<boolean> {
    const { paths, rootfs } = this.opts;
    return existsSync(paths.bundle(id)) || existsSync(path.join(paths.runcRoot, id)) || (rootfs.get(id) !== undefined && (await rootfs.isMounted(id)));
  }

  /**
   * Deletes what a container being removed keeps in the exec root: the exit file and attach
   * socket's folder conmon left (nothing else removes them), and a task's secrets' tmpfs.
   */
  async forget(id: string): Promise<void> {
    const { paths } = this.opts;
    await removeExitFiles({ exitDir: paths.exitDir, containerId: id });
    rmSync(path.join(paths.socketDir, id), { recursive: true, force: true });
    await removeTaskFiles(paths.secretsDir(id));
  }

  /** Unmounts and deletes the secrets of tasks none of `known` (after a restart: removals and creates it cut short). */
  sweepTaskFiles(known: ReadonlySet<string>): Promise<void> {
    return sweepTaskFiles(this.opts.paths.secretsRoot, known);
  }

  /** Deletes the exit files and socket folders conmon left for containers none of `known` (after a restart: removals it cut short). */
  sweepConmonLeftovers(known: ReadonlySet<string>): void {
    const { paths } = this.opts;
    for (const dir of [paths.exitDir, paths.socketDir]) {
      for (const name of readdirSync(dir)) {
        // conmon writes an exit file beside its place first (`<id>.XXXXXX`), then renames it
        if (!known.has(name.replace(/\.[A-Za-z0-9]{6}$/, ''))) rmSync(path.join(dir, name), { recursive: true, force: true });
      }
    }
  }

  /** Ends the log pipe keepers of containers without a run in `live` (after a restart: those a kill orphaned). */
  sweepLogKeepers(live: ReadonlySet<string>): Promise<void> {
    return sweepLogKeepers(this.opts.paths.bundlesRoot, live);
  }

  /** Clears what a run leaves: runc's state (killing what is left with killFirst), the bundle, the mount. */
  async clear(id: string, opts: { killFirst: boolean }): Promise<void> {
    try {
      await this.opts.runc.delete(id, { force: opts.killFirst });
    } catch (err) {
      if ((err as { kind?: string }).kind !== 'notFound') this.opts.log.debug({ err, id }, 'runc delete');
    }
    await releaseLogPipe(this.opts.paths.bundle(id));
    rmSync(this.opts.paths.bundle(id), { recursive: true, force: true });
    // the networking, the volumes and the mounts are undone side by side, as they were made
    const shm = this.opts.paths.shmDir(id);
    const undone = await Promise.allSettled([
      this.opts.networks.detach(id),
      this.opts.volumes.unmountFor(id),
      (async () => {
        if ((await isMountPoint(shm))) await unmountShm(shm);
        // a removal the daemon's end cut short may have taken the root filesystem already
        if (this.opts.rootfs.get(id) !== undefined) await this.opts.rootfs.unmount(id);
      })(),
    ]);
    const failed = undone.find((r) => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }
}

/** `--network container:<id>`: the run has no networking of its own. */
function joinsAnother(record: ContainerRecord): boolean {
  return (record.hostConfig.NetworkMode ?? '').startsWith('container:');
}
