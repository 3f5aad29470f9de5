// The Image area's operations.
import type { Route } from '../../router.js';
import type { ImageBackend } from './backend.js';
import type { ImageCommitBackend } from './commit-backend.js';
import { imageCommit } from './image-commit.js';
import { imageCreate } from './image-create.js';
import { imageDelete } from './image-delete.js';
import { imageGet, imageGetAll } from './image-get.js';
import { imageHistory } from './image-history.js';
import { imageInspect } from './image-inspect.js';
import { imageList } from './image-list.js';
import { imageLoad } from './image-load.js';
import { imagePrune } from './image-prune.js';
import { imagePush } from './image-push.js';
import { imageTag } from './image-tag.js';

export function imageRoutes(backend: ImageBackend, commit: ImageCommitBackend): Route[] {
  return [
    { operationId: 'ImageList', method: 'GET', path: '/images/json', handle: imageList(backend) },
    { operationId: 'ImageInspect', method: 'GET', path: '/images/{name}/json', handle: imageInspect(backend) },
    { operationId: 'ImageHistory', method: 'GET', path: '/images/{name}/history', handle: imageHistory(backend) },
    { operationId: 'ImageTag', method: 'POST', path: '/images/{name}/tag', handle: imageTag(backend) },
    { operationId: 'ImageDelete', method: 'DELETE', path: '/images/{name}', handle: imageDelete(backend) },
    { operationId: 'ImageGet', method: 'GET', path: '/images/{name}/get', handle: imageGet(backend) },
    { operationId: 'ImageGetAll', method: 'GET', path: '/images/get', handle: imageGetAll(backend) },
    { operationId: 'ImageLoad', method: 'POST', path: '/images/load', handle: imageLoad(backend) },
    { operationId: 'ImageCreate', method: 'POST', path: '/images/create', handle: imageCreate(backend) },
    { operationId: 'ImagePrune', method: 'POST', path: '/images/prune', handle: imagePrune(backend) },
    { operationId: 'ImagePush', method: 'POST', path: '/images/{name}/push', handle: imagePush(backend) },
    { operationId: 'ImageCommit', method: 'POST', path: '/commit', handle: imageCommit(commit) },
  ];
}
