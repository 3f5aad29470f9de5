// The volume area: the records loaded (bare directories of the local driver adopted, copy-ups a
// crash cut short emptied), the local driver under <dataRoot>/volumes and the legacy plugins
// found as dockerd finds them. It answers the Volume routes (`api`), the containers (`containers`:
// volumes made on first use, mounted for runs, filled from the image) and /system/df (`inventory`).
import path from 'node:path';
import type { Logger } from 'pino';
import type { EventBus } from '../events/event-bus.js';
import type { FilterArgs } from '../lib/filters.js';
import { LocalDriver } from './local-driver.js';
import { DOCKER_PLUGIN_DIRS } from './plugin-discovery.js';
import { decodeVolumeCreate } from './create-request.js';
import { VolumeDrivers } from './volume-drivers.js';
import { VolumeRecords } from './volume-records.js';
import { VolumeService, type VolumeUsers } from './volume-service.js';

export interface VolumesDeps {
  dataRoot: string;
  events: EventBus;
  log: Logger;
  /** who uses a volume: the containers' usage port */
  users: VolumeUsers;
  /** where legacy plugins are looked for; Docker's directories when empty */
  pluginsDir: string;
}

export async function createVolumes(deps: VolumesDeps) {
  const pluginDirs = deps.pluginsDir === '' ? DOCKER_PLUGIN_DIRS : { sockets: deps.pluginsDir, specs: [deps.pluginsDir] };
  const drivers = new VolumeDrivers(new LocalDriver(path.join(deps.dataRoot, 'volumes'), deps.log), pluginDirs);
  const service = new VolumeService({ records: new VolumeRecords(deps.dataRoot), drivers, users: deps.users, events: deps.events, log: deps.log });
  await service.load();

  const api = {
    list: (filters: FilterArgs) => service.list(filters),
    inspect: (name: string) => service.inspect(name),
    create: (body: unknown) => service.create(decodeVolumeCreate(body)),
    remove: (name: string, force: boolean) => service.remove(name, force),
    prune: (filters: FilterArgs) => service.prune(filters),
  };
  const containers = {
    ensure: service.ensure.bind(service),
    mountFor: service.mountFor.bind(service),
    unmountFor: service.unmountFor.bind(service),
    restoreMounts: service.restoreMounts.bind(service),
    copyUpInto: service.copyUpInto.bind(service),
    remove: (name: string) => service.remove(name, false),
  };
  const inventory = { dataUsage: () => service.dataUsage(), drivers: () => drivers.names() };
  return { api, containers, inventory };
}
