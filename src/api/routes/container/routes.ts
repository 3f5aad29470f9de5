// The Container area's operations (exec has an area of its own, as in the spec).
import type { Route } from '../../router.js';
import type { ContainerBackend } from './backend.js';
import { containerArchive, containerArchiveInfo, putContainerArchive } from './container-archive.js';
import { containerAttach } from './container-attach.js';
import { containerAttachWebsocket } from './container-attach-ws.js';
import { containerCreate } from './container-create.js';
import { containerKill, containerPause, containerResize, containerRestart, containerStart, containerStop, containerUnpause } from './container-lifecycle.js';
import { containerChanges } from './container-changes.js';
import { containerDelete } from './container-delete.js';
import { containerExport } from './container-export.js';
import { containerInspect } from './container-inspect.js';
import { containerList } from './container-list.js';
import { containerPrune } from './container-prune.js';
import { containerRename } from './container-rename.js';
import { containerLogs } from './container-logs.js';
import { containerWait } from './container-wait.js';
import { containerStats } from './container-stats.js';
import { containerTop } from './container-top.js';
import { containerUpdate } from './container-update.js';

export function containerRoutes(backend: ContainerBackend): Route[] {
  return [
    { operationId: 'ContainerList', method: 'GET', path: '/containers/json', handle: containerList(backend) },
    { operationId: 'ContainerCreate', method: 'POST', path: '/containers/create', handle: containerCreate(backend) },
    { operationId: 'ContainerInspect', method: 'GET', path: '/containers/{id}/json', handle: containerInspect(backend) },
    { operationId: 'ContainerLogs', method: 'GET', path: '/containers/{id}/logs', handle: containerLogs(backend) },
    { operationId: 'ContainerResize', method: 'POST', path: '/containers/{id}/resize', handle: containerResize(backend) },
    { operationId: 'ContainerStart', method: 'POST', path: '/containers/{id}/start', handle: containerStart(backend) },
    { operationId: 'ContainerStop', method: 'POST', path: '/containers/{id}/stop', handle: containerStop(backend) },
    { operationId: 'ContainerRestart', method: 'POST', path: '/containers/{id}/restart', handle: containerRestart(backend) },
    { operationId: 'ContainerKill', method: 'POST', path: '/containers/{id}/kill', handle: containerKill(backend) },
    { operationId: 'ContainerRename', method: 'POST', path: '/containers/{id}/rename', handle: containerRename(backend) },
    { operationId: 'ContainerPause', method: 'POST', path: '/containers/{id}/pause', handle: containerPause(backend) },
    { operationId: 'ContainerUnpause', method: 'POST', path: '/containers/{id}/unpause', handle: containerUnpause(backend) },
    { operationId: 'ContainerAttach', method: 'POST', path: '/containers/{id}/attach', handle: containerAttach(backend), hijacks: true },
    { operationId: 'ContainerAttachWebsocket', method: 'GET', path: '/containers/{id}/attach/ws', handle: containerAttachWebsocket(backend) },
    { operationId: 'ContainerWait', method: 'POST', path: '/containers/{id}/wait', handle: containerWait(backend) },
    { operationId: 'ContainerDelete', method: 'DELETE', path: '/containers/{id}', handle: containerDelete(backend) },
    { operationId: 'ContainerPrune', method: 'POST', path: '/containers/prune', handle: containerPrune(backend) },
    { operationId: 'ContainerArchiveInfo', method: 'HEAD', path: '/containers/{id}/archive', handle: containerArchiveInfo(backend) },
    { operationId: 'ContainerArchive', method: 'GET', path: '/containers/{id}/archive', handle: containerArchive(backend) },
    { operationId: 'PutContainerArchive', method: 'PUT', path: '/containers/{id}/archive', handle: putContainerArchive(backend) },
    { operationId: 'ContainerExport', method: 'GET', path: '/containers/{id}/export', handle: containerExport(backend) },
    { operationId: 'ContainerChanges', method: 'GET', path: '/containers/{id}/changes', handle: containerChanges(backend) },
    { operationId: 'ContainerTop', method: 'GET', path: '/containers/{id}/top', handle: containerTop(backend) },
    { operationId: 'ContainerStats', method: 'GET', path: '/containers/{id}/stats', handle: containerStats(backend) },
    { operationId: 'ContainerUpdate', method: 'POST', path: '/containers/{id}/update', handle: containerUpdate(backend) },
  ];
}
