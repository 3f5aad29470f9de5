// The volumes' rules, whatever the driver: names, the records, create (the same name again is the
// same volume, as dockerd 20.10), list and its filters, inspect, removal refused while a container
// references the volume, prune, and the containers' side: volumes made on first use, mounted for a
// run and unmounted at its end (with their events), the image's content copied into a new volume.
// Who uses a volume is asked of the containers' records (the usage port), never counted here, so a
// restart cannot get it wrong.
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { conflict, EngineError, notFound } from '../errors.js';
import type { EventBus } from '../events/event-bus.js';
import { directorySizeBytes } from '../lib/directory-size.js';
import type { FilterArgs } from '../lib/filters.js';
import { LOCAL_DRIVER } from './local-driver.js';
import { PluginError } from './plugin-client.js';
import type { VolumeDescription } from './volume-driver.js';
import type { VolumeDrivers } from './volume-drivers.js';
import { selectPrunable, selectVolumes } from './volume-filters.js';
import { checkVolumeName } from './volume-name.js';
import { rfc3339Seconds, type VolumeRecord } from './volume-record.js';
import type { VolumeRecords } from './volume-records.js';

/** Which containers (by ID, any state) reference each volume. */
export type VolumeUsers = (name: string) => string[];

export interface VolumeCreateRequest {
  name: string;
  driver: string;
  driverOpts: Record<string, string> | null;
  labels: Record<string, string> | null;
}

export interface VolumeView extends VolumeDescription {
  record: VolumeRecord;
}

/** A volume mount of a container's: enough to mount and unmount it and to tell the events. */
export interface ContainerVolumeMount {
  name: string;
  destination: string;
  /** the host path recorded at create, which a failed mount's message names */
  source: string;
  rw: boolean;
  propagation: string;
}

interface ActiveMount {
  name: string;
  driver: string;
  mountId: string;
  /** false for the one whose mount failed: its unmount event is still told, as dockerd's */
  mounted: boolean;
}

/** A plugin's volume with no CreatedAt of its own (Go's zero time) */
const ZERO_TIME = '0001-01-01T00:00:00Z';

export class VolumeService {
  private readonly volumes = new Map<string, VolumeRecord>();
  /** per container, the volumes its run has mounted */
  private readonly mounted = new Map<string, ActiveMount[]>();
  /** per volume name, the operation under way: creates and removals of one name don't interleave */
  private readonly busy = new Map<string, Promise<unknown>>();

  constructor(
    private readonly deps: {
      records: VolumeRecords;
      drivers: VolumeDrivers;
      users: VolumeUsers;
      events: EventBus;
      log: Logger;
    },
  ) {}

  /** Loads the records; a bare directory of the local driver is a local volume (dockerd finds them so); a half-done copy-up is emptied. */
  async load(): Promise<void> {
    const { records, interruptedCopyUps } = this.deps.records.load();
    const local = this.deps.drivers.local;
    for (const r of records) {
      this.volumes.set(r.name, r);
      if (r.driver === LOCAL_DRIVER) local.adopt(r.name, r.options);
    }
    for (const name of local.directories()) {
      if (this.volumes.has(name)) continue;
      const record: VolumeRecord = { name, driver: LOCAL_DRIVER, createdAt: rfc3339Seconds(local.changedAt(name)), labels: null, options: null, scope: 'local' };
      await this.deps.records.write(record);
      this.volumes.set(name, record);
    }
    for (const name of interruptedCopyUps) {
      await this.emptyInterruptedCopyUp(name).catch((err: unknown) => this.deps.log.warn({ err, volume: name }, 'emptying a volume whose copy-up was interrupted'));
    }
  }

  async create(req: VolumeCreateRequest): Promise<VolumeView> {
    const name = req.name || randomBytes(32).toString('hex');
    const record = await this.createOrGet(name, { driver: req.driver, options: req.driverOpts, labels: req.labels });
    return this.view(record);
  }

  /** The volumes the filters keep, with those plugins hold that berth never made; a plugin that fails is a warning. */
  async list(filters: FilterArgs): Promise<{ volumes: VolumeView[]; warnings: string[] }> {
    const warnings: string[] = [];
    const mountpoints = new Map<string, string>();
    const unrecorded: VolumeRecord[] = [];
    for (const driver of this.deps.drivers.discovered()) {
      let listed;
      try {
        listed = await driver.list();
      } catch (err) {
        // a plugin berth holds no volume of is left out quietly, as dockerd leaves out one it can't activate
        if ([...this.volumes.values()].some((v) => v.driver === driver.name)) warnings.push(`list ${driver.name}: ${(err as Error).message}`);
        continue;
      }
      for (const v of listed) {
        const known = this.volumes.get(v.name);
        if (known !== undefined && known.driver !== driver.name) continue;
        mountpoints.set(v.name, v.mountpoint);
        if (known === undefined) unrecorded.push({ name: v.name, driver: driver.name, createdAt: ZERO_TIME, labels: null, options: null, scope: 'local' });
      }
    }
    const local = this.deps.drivers.local;
    const volumes = selectVolumes([...this.volumes.values(), ...unrecorded], filters, this.deps.users).map((record): VolumeView => {
      if (record.driver === LOCAL_DRIVER) return { record, mountpoint: local.mountpoint(record.name), createdAt: record.createdAt };
      return { record, mountpoint: mountpoints.get(record.name) ?? '', createdAt: ZERO_TIME };
    });
    return { volumes, warnings };
  }

  /** The volume as its driver sees it now; a plugin that no longer knows it loses berth's record too, as dockerd's. */
  async inspect(name: string): Promise<VolumeView> {
    return this.view(this.get(name));
  }

  async remove(name: string, force: boolean): Promise<void> {
    const record = this.volumes.get(name);
    if (record === undefined) {
      if (force) return;
      throw this.noSuchVolume(name);
    }
    await this.serial(name, async () => {
      const users = this.deps.users(name);
      if (users.length > 0) throw conflict(`remove ${name}: volume is in use - [${users.join(', ')}]`);
      await this.removeNow(record, force);
      this.publish('destroy', record);
    });
  }

  /**
   * Removes what prune may, as dockerd 20.10 on every API version: the local volumes without
   * options that no container references, named or not, as the label filters select them. One
   * prune event tells it, not one destroy per volume.
   */
  async prune(filters: FilterArgs): Promise<{ names: string[]; reclaimedBytes: number }> {
    const names: string[] = [];
    let reclaimedBytes = 0;
    const candidates = [...this.volumes.values()].filter((r) => r.driver === LOCAL_DRIVER && !hasOptions(r));
    for (const record of selectPrunable(candidates, filters, this.deps.users)) {
      const size = this.localSize(record.name);
      try {
        await this.serial(record.name, async () => {
          if (this.deps.users(record.name).length > 0) throw conflict(`remove ${record.name}: volume is in use`);
          await this.removeNow(record, false);
        });
      } catch (err) {
        this.deps.log.warn({ err, volume: record.name }, 'pruning a volume');
        continue;
      }
      names.push(record.name);
      reclaimedBytes += Math.max(size, 0);
    }
    this.deps.events.publish('volume', 'prune', { id: '', attributes: { reclaimed: String(reclaimedBytes) } });
    return { names, reclaimedBytes };
  }

  /** /system/df: the local volumes without options (as dockerd counts them), with their sizes and how many containers reference each. */
  async dataUsage(): Promise<Array<{ view: VolumeView; size: number; refCount: number }>> {
    const local = [...this.volumes.values()].filter((r) => r.driver === LOCAL_DRIVER && !hasOptions(r));
    return Promise.all(local.map(async (record) => ({ view: await this.view(record), size: this.localSize(record.name), refCount: this.deps.users(record.name).length })));
  }

  // ---- the containers' side ----

  /**
   * The volume a container's mount names, made when missing; a new anonymous one when name is
   * undefined. Each call is a `create` event, as each of dockerd's. The host path is what the
   * driver says now ('' for a plugin's volume that says none).
   */
  async ensure(name: string | undefined, opts: { driver?: string; driverOpts?: Record<string, string> | null; labels?: Record<string, string> | null }): Promise<{ name: string; driver: string; hostPath: string }> {
    const record = await this.createOrGet(name ?? randomBytes(32).toString('hex'), { driver: opts.driver ?? '', options: opts.driverOpts ?? null, labels: opts.labels ?? null });
    const hostPath = await this.deps.drivers
      .get(record.driver)
      .describe(record.name)
      .then((d) => d.mountpoint)
      .catch(() => '');
    return { name: record.name, driver: record.driver, hostPath };
  }

  /** Mounts a run's volumes (mount events); on a failure, what was mounted is unmounted. Destination → host path. */
  async mountFor(containerId: string, mounts: readonly ContainerVolumeMount[]): Promise<Map<string, string>> {
    const sources = new Map<string, string>();
    const active = this.mounted.get(containerId) ?? [];
    this.mounted.set(containerId, active);
    try {
      for (const m of mounts) {
        const mountId = mountIdOf(containerId, m.destination);
        const record = this.volumes.get(m.name);
        try {
          if (record === undefined) throw this.noSuchVolume(m.name);
          sources.set(m.destination, await this.deps.drivers.get(record.driver).mount(record.name, mountId));
        } catch (err) {
          if (record) active.push({ name: record.name, driver: record.driver, mountId, mounted: false });
          throw new EngineError('system', `error while mounting volume '${m.source}': ${(err as Error).message}`, { cause: err });
        }
        active.push({ name: record.name, driver: record.driver, mountId, mounted: true });
        this.publish('mount', record, { container: containerId, destination: m.destination, propagation: m.propagation, 'read/write': String(m.rw) });
      }
    } catch (err) {
      await this.unmountFor(containerId);
      throw err;
    }
    return sources;
  }

  /** Unmounts what a run mounted (unmount events); a driver's failure is logged, the rest still go. */
  async unmountFor(containerId: string): Promise<void> {
    const active = this.mounted.get(containerId);
    this.mounted.delete(containerId);
    for (const m of active ?? []) {
      if (m.mounted) {
        try {
          await this.deps.drivers.get(m.driver).unmount(m.name, m.mountId);
        } catch (err) {
          this.deps.log.warn({ err, volume: m.name, container: containerId }, 'unmounting a volume');
        }
      }
      this.deps.events.publish('volume', 'unmount', { id: m.name, attributes: { container: containerId, driver: m.driver } });
    }
  }

  /** After a restart: the runs that were live keep their mounts (so their ends unmount them); a local device mount nobody uses goes. */
  async restoreMounts(runs: ReadonlyArray<{ containerId: string; mounts: readonly ContainerVolumeMount[] }>): Promise<void> {
    const localUsers = new Map<string, string[]>();
    for (const run of runs) {
      const active: ActiveMount[] = [];
      for (const m of run.mounts) {
        const record = this.volumes.get(m.name);
        if (record === undefined) continue;
        const mountId = mountIdOf(run.containerId, m.destination);
        active.push({ name: record.name, driver: record.driver, mountId, mounted: true });
        if (record.driver === LOCAL_DRIVER) localUsers.set(record.name, [...(localUsers.get(record.name) ?? []), mountId]);
      }
      this.mounted.set(run.containerId, active);
    }
    await this.deps.drivers.local.restoreMounts(localUsers);
  }

  /**
   * Fills a volume through `fill` if it is empty (with the image's content at its mount path), the
   * volume mounted for it. A mark on disk brackets the copy: a copy a crash of berthd cut short is
   * emptied at the next start rather than taken for a filled volume. (The copied files are not
   * synced, as dockerd does not: a crash of the machine may leave them short.)
   */
  async copyUpInto(name: string, fill: (dir: string) => Promise<void>): Promise<void> {
    const record = this.get(name);
    const driver = this.deps.drivers.get(record.driver);
    const mountId = randomBytes(32).toString('hex');
    const dir = await driver.mount(name, mountId);
    try {
      // a copy cut short and not emptied at start (its driver was away then) is not a full volume
      if (this.deps.records.copyUpMarked(name)) emptyDirectory(dir);
      if (readdirSync(dir).length > 0) return;
      await this.deps.records.markCopyUp(name);
      await fill(dir);
      this.deps.records.clearCopyUp(name);
    } finally {
      await driver.unmount(name, mountId).catch((err: unknown) => this.deps.log.warn({ err, volume: name }, 'unmounting a volume after its copy-up'));
    }
  }

  // ----

  private get(name: string): VolumeRecord {
    const record = this.volumes.get(name);
    if (record === undefined) throw this.noSuchVolume(name);
    return record;
  }

  private noSuchVolume(name: string): EngineError {
    return notFound(`get ${name}: no such volume`);
  }

  /** The record with what the driver says now. A plugin that answers it has no such volume: the record goes (dockerd's purge). */
  private async view(record: VolumeRecord): Promise<VolumeView> {
    let description: VolumeDescription;
    try {
      description = await this.deps.drivers.get(record.driver).describe(record.name);
    } catch (err) {
      if (err instanceof PluginError) {
        await this.deps.records.remove(record.name);
        this.volumes.delete(record.name);
        throw this.noSuchVolume(record.name);
      }
      throw inContext(`get ${record.name}: error while checking if volume "${record.name}" exists in driver "${record.driver}"`, err);
    }
    // a plugin's own CreatedAt, or Go's zero time as dockerd shows one without
    return { record, ...description, createdAt: record.driver === LOCAL_DRIVER ? record.createdAt : (description.createdAt ?? ZERO_TIME) };
  }

  /**
   * The volume of that name as it is, or a new one; either way a create event. A driver named
   * that is not the volume's is a conflict; options and labels sent again are ignored (dockerd 20.10).
   */
  private createOrGet(name: string, want: { driver: string; options: Record<string, string> | null; labels: Record<string, string> | null }): Promise<VolumeRecord> {
    return this.serial(name, async () => {
      // the driver is looked up before the name is checked or known, as dockerd: an unknown one is a 404 even for a bad or a known name
      const driver = withContext(`create ${name}`, () => this.deps.drivers.get(want.driver || LOCAL_DRIVER));
      checkVolumeName(name);
      let record = this.volumes.get(name);
      if (record !== undefined && want.driver !== '' && record.driver !== driver.name) {
        throw conflict(`create ${name}: driver '${record.driver}' already has volume '${name}': volume name must be unique`);
      }
      if (record === undefined) {
        try {
          await driver.create(name, want.options);
          record = { name, driver: driver.name, createdAt: rfc3339Seconds(new Date()), labels: want.labels, options: want.options, scope: await driver.scope() };
          await this.deps.records.write(record);
        } catch (err) {
          if (record) await driver.remove(name).catch(() => {});
          throw inContext(`create ${name}`, err);
        }
        this.volumes.set(name, record);
        if (driver.name === LOCAL_DRIVER) this.deps.drivers.local.adopt(name, want.options);
      }
      this.publish('create', record);
      return record;
    });
  }

  /** The driver's removal, then the record's. Forced, a driver that answers with an error still loses the record; one not reached keeps it. */
  private async removeNow(record: VolumeRecord, force: boolean): Promise<void> {
    try {
      await this.deps.drivers.get(record.driver).remove(record.name);
    } catch (err) {
      if (!(force && err instanceof PluginError)) throw inContext(`remove ${record.name}`, err);
      this.deps.log.warn({ err, volume: record.name }, 'force-removing a volume its driver could not remove');
    }
    await this.deps.records.remove(record.name);
    this.volumes.delete(record.name);
  }

  private async emptyInterruptedCopyUp(name: string): Promise<void> {
    const record = this.volumes.get(name);
    if (record !== undefined) {
      const driver = this.deps.drivers.get(record.driver);
      const mountId = randomBytes(32).toString('hex');
      const dir = await driver.mount(name, mountId);
      try {
        emptyDirectory(dir);
      } finally {
        await driver.unmount(name, mountId);
      }
    }
    this.deps.records.clearCopyUp(name);
  }

  private localSize(name: string): number {
    try {
      return directorySizeBytes(this.deps.drivers.local.dataDir(name));
    } catch {
      return -1;
    }
  }

  private publish(action: string, record: VolumeRecord, extra: Record<string, string> = {}): void {
    this.deps.events.publish('volume', action, { id: record.name, attributes: { driver: record.driver, ...extra } });
  }

  private serial<T>(name: string, op: () => Promise<T>): Promise<T> {
    const before = this.busy.get(name) ?? Promise.resolve();
    const run = before.then(op, op);
    const settled = run.catch(() => {});
    this.busy.set(name, settled);
    void settled.then(() => {
      if (this.busy.get(name) === settled) this.busy.delete(name);
    });
    return run;
  }
}

/** The ID a container's mount goes by with its driver: the same for the same mount after a restart, so its unmount matches. */
function mountIdOf(containerId: string, destination: string): string {
  return createHash('sha256').update(`${containerId}:${destination}`).digest('hex');
}

function emptyDirectory(dir: string): void {
  for (const entry of readdirSync(dir)) rmSync(path.join(dir, entry), { recursive: true, force: true });
}

function hasOptions(record: VolumeRecord): boolean {
  return record.options !== null && Object.keys(record.options).length > 0;
}

/** The error with what was being done before its message (dockerd's OpErr), its kind kept. */
function inContext(what: string, err: unknown): EngineError {
  return new EngineError(err instanceof EngineError ? err.kind : 'system', `${what}: ${(err as Error).message}`, { cause: err });
}

function withContext<T>(what: string, op: () => T): T {
  try {
    return op();
  } catch (err) {
    throw inContext(what, err);
  }
}
