// The Image area's build operations: POST /build (ImageBuild) and POST /build/prune (BuildPrune).
import type { Route } from '../../router.js';
import type { BuildBackend } from './backend.js';
import { buildPrune } from './build-prune.js';
import { imageBuild } from './image-build.js';

export function buildRoutes(backend: BuildBackend): Route[] {
  return [
    { operationId: 'ImageBuild', method: 'POST', path: '/build', handle: imageBuild(backend) },
    { operationId: 'BuildPrune', method: 'POST', path: '/build/prune', handle: buildPrune(backend) },
  ];
}
