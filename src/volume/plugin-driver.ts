// A volume driver served by a legacy plugin, over Docker's volume plugin protocol v1. The plugin
// is activated at its first use (/Plugin.Activate must list VolumeDriver) and again after a
// failed activation; its errors come back in its own words (plugin-client.ts).
import { EngineError } from '../errors.js';
import { PluginClient, PluginError } from './plugin-client.js';
import type { PluginAddress } from './plugin-discovery.js';
import type { VolumeDescription, VolumeDriver } from './volume-driver.js';

/** dockerd's: Create and Mount may take two minutes, the other calls one */
const LONG_CALL_MS = 120_000;
const CALL_MS = 60_000;

interface PluginVolume {
  Name?: string;
  Mountpoint?: string;
  CreatedAt?: string;
  Status?: Record<string, unknown>;
}

export class PluginDriver implements VolumeDriver {
  private readonly client: PluginClient;
  private activated: Promise<void> | undefined;

  constructor(
    readonly name: string,
    readonly address: PluginAddress,
  ) {
    this.client = new PluginClient(name, address);
  }

  async scope(): Promise<'local' | 'global'> {
    // without the method, or with an error, a plugin is local, as dockerd takes it
    const answer = await this.call<{ Capabilities?: { Scope?: string } }>('VolumeDriver.Capabilities', {}, CALL_MS).catch(() => undefined);
    return answer?.Capabilities?.Scope?.toLowerCase() === 'global' ? 'global' : 'local';
  }

  async create(name: string, options: Record<string, string> | null): Promise<void> {
    await this.call('VolumeDriver.Create', { Name: name, Opts: options }, LONG_CALL_MS);
  }

  async remove(name: string): Promise<void> {
    await this.call('VolumeDriver.Remove', { Name: name }, CALL_MS);
  }

  async mount(name: string, mountId: string): Promise<string> {
    return (await this.call<{ Mountpoint?: string }>('VolumeDriver.Mount', { Name: name, ID: mountId }, LONG_CALL_MS)).Mountpoint ?? '';
  }

  async unmount(name: string, mountId: string): Promise<void> {
    await this.call('VolumeDriver.Unmount', { Name: name, ID: mountId }, CALL_MS);
  }

  async describe(name: string): Promise<VolumeDescription> {
    const { Volume: v } = await this.call<{ Volume?: PluginVolume | null }>('VolumeDriver.Get', { Name: name }, CALL_MS);
    if (!v) throw new PluginError(`no volume ${name}`);
    return { mountpoint: v.Mountpoint ?? '', ...(v.CreatedAt ? { createdAt: v.CreatedAt } : {}), ...(v.Status && Object.keys(v.Status).length > 0 ? { status: v.Status } : {}) };
  }

  /** Every volume the plugin has, with its mount point. */
  async list(): Promise<Array<{ name: string; mountpoint: string }>> {
    const { Volumes } = await this.call<{ Volumes?: PluginVolume[] | null }>('VolumeDriver.List', {}, CALL_MS);
    return (Volumes ?? []).flatMap((v) => (typeof v?.Name === 'string' && v.Name !== '' ? [{ name: v.Name, mountpoint: v.Mountpoint ?? '' }] : []));
  }

  private async call<T extends object>(method: string, body: unknown, timeoutMs: number): Promise<T> {
    this.activated ??= this.activate();
    try {
      await this.activated;
    } catch (err) {
      this.activated = undefined;
      throw err;
    }
    return this.client.call<T>(method, body, timeoutMs);
  }

  private async activate(): Promise<void> {
    let answer: { Implements?: unknown };
    try {
      answer = await this.client.call<{ Implements?: unknown }>('Plugin.Activate', undefined, CALL_MS);
    } catch (err) {
      throw new EngineError('system', `error looking up volume plugin ${this.name}: legacy plugin: ${(err as Error).message}`, { cause: err });
    }
    if (!Array.isArray(answer.Implements) || !answer.Implements.includes('VolumeDriver')) {
      throw new EngineError('system', `error looking up volume plugin ${this.name}: legacy plugin: Plugin does not implement the requested driver`);
    }
  }
}
