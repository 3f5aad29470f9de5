// Which driver serves a name: `local`, or the legacy plugin of that name wherever discovery finds
// it. A plugin is looked up at each use, so one started after berthd is found; dockerd retries a
// missing one for 15 s, berth answers at once.
import { notFound } from '../errors.js';
import type { LocalDriver } from './local-driver.js';
import { findPlugin, pluginNames, type PluginDirs } from './plugin-discovery.js';
import { PluginDriver } from './plugin-driver.js';
import type { VolumeDriver } from './volume-driver.js';

export class VolumeDrivers {
  private readonly plugins = new Map<string, PluginDriver>();

  constructor(
    readonly local: LocalDriver,
    private readonly pluginDirs: PluginDirs,
  ) {}

  /** The driver, or a 404 in dockerd's words. */
  get(name: string): VolumeDriver {
    if (name === this.local.name) return this.local;
    const address = findPlugin(name, this.pluginDirs);
    if (address === undefined) throw notFound(`error looking up volume plugin ${name}: plugin "${name}" not found`);
    const known = this.plugins.get(name);
    if (known && JSON.stringify(known.address) === JSON.stringify(address)) return known;
    const driver = new PluginDriver(name, address);
    this.plugins.set(name, driver);
    return driver;
  }

  /** Every plugin the directories show, as drivers (for listing what they hold). */
  discovered(): PluginDriver[] {
    return pluginNames(this.pluginDirs).flatMap((name) => {
      if (name === this.local.name) return [];
      try {
        return [this.get(name) as PluginDriver];
      } catch {
        return [];
      }
    });
  }

  /** The drivers /info lists: local and the plugins used since berthd started, sorted. */
  names(): string[] {
    return [this.local.name, ...this.plugins.keys()].sort();
  }
}
