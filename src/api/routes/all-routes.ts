// Every area's routes, from the backends that serve them: the one list the router mounts.
import type { Route } from '../router.js';
import type { BuildBackend } from './build/backend.js';
import { buildRoutes } from './build/routes.js';
import type { ContainerBackend } from './container/backend.js';
import type { DebugBackend } from './debug/backend.js';
import { debugRoutes } from './debug/routes.js';
import type { DistributionBackend } from './distribution/backend.js';
import { distributionRoutes } from './distribution/routes.js';
import { containerRoutes } from './container/routes.js';
import type { ExecBackend } from './exec/backend.js';
import { execRoutes } from './exec/routes.js';
import type { ImageBackend } from './image/backend.js';
import type { ImageCommitBackend } from './image/commit-backend.js';
import { imageRoutes } from './image/routes.js';
import type { NetworkBackend } from './network/backend.js';
import type { NetworkConnectBackend } from './network/connect-backend.js';
import { networkRoutes } from './network/routes.js';
import { pluginRoutes } from './plugin/routes.js';
import type { SwarmBackend } from './swarm/backend.js';
import { swarmRoutes } from './swarm/routes.js';
import type { SystemBackend } from './system/backend.js';
import { systemRoutes } from './system/routes.js';
import type { VolumeBackend } from './volume/backend.js';
import { volumeRoutes } from './volume/routes.js';

export interface Backends {
  system: SystemBackend;
  image: ImageBackend;
  /** POST /commit, tagged Image in the spec, served by the containers */
  commit: ImageCommitBackend;
  container: ContainerBackend;
  exec: ExecBackend;
  network: NetworkBackend;
  /** POST /networks/{id}/connect and /disconnect, served by the containers */
  networkConnect: NetworkConnectBackend;
  volume: VolumeBackend;
  /** POST /auth, GET /distribution/{name}/json, GET /images/search: served by the images */
  distribution: DistributionBackend;
  /** POST /build and /build/prune */
  build: BuildBackend;
  /** the swarm and its nodes */
  swarm: SwarmBackend;
  /** berth's own /debug routes, outside the spec */
  debug: DebugBackend;
}

export function allRoutes(backends: Backends): Route[] {
  return [
    ...systemRoutes(backends.system),
    ...imageRoutes(backends.image, backends.commit),
    ...containerRoutes(backends.container),
    ...execRoutes(backends.exec),
    ...networkRoutes(backends.network, backends.networkConnect),
    ...volumeRoutes(backends.volume),
    ...pluginRoutes(),
    ...swarmRoutes(backends.swarm),
    ...distributionRoutes(backends.distribution),
    ...buildRoutes(backends.build),
    ...debugRoutes(backends.debug),
  ];
}
