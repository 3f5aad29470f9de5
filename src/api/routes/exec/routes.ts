// The Exec area's operations.
import type { Route } from '../../router.js';
import type { ExecBackend } from './backend.js';
import { containerExec } from './container-exec.js';
import { execInspect } from './exec-inspect.js';
import { execResize } from './exec-resize.js';
import { execStart } from './exec-start.js';

export function execRoutes(backend: ExecBackend): Route[] {
  return [
    { operationId: 'ContainerExec', method: 'POST', path: '/containers/{id}/exec', handle: containerExec(backend) },
    { operationId: 'ExecStart', method: 'POST', path: '/exec/{id}/start', handle: execStart(backend), hijacks: true },
    { operationId: 'ExecResize', method: 'POST', path: '/exec/{id}/resize', handle: execResize(backend) },
    { operationId: 'ExecInspect', method: 'GET', path: '/exec/{id}/json', handle: execInspect(backend) },
  ];
}
