// The System area's operations (POST /auth comes with the registry).
import type { Route } from '../../router.js';
import type { SystemBackend } from './backend.js';
import { systemDataUsage } from './system-data-usage.js';
import { systemEvents } from './system-events.js';
import { systemInfo } from './system-info.js';
import { systemPing } from './system-ping.js';
import { systemVersion } from './system-version.js';

export function systemRoutes(backend: SystemBackend): Route[] {
  return [
    { operationId: 'SystemPing', method: 'GET', path: '/_ping', handle: systemPing },
    { operationId: 'SystemPingHead', method: 'HEAD', path: '/_ping', handle: systemPing },
    { operationId: 'SystemVersion', method: 'GET', path: '/version', handle: systemVersion(backend) },
    { operationId: 'SystemInfo', method: 'GET', path: '/info', handle: systemInfo(backend) },
    { operationId: 'SystemEvents', method: 'GET', path: '/events', handle: systemEvents(backend) },
    { operationId: 'SystemDataUsage', method: 'GET', path: '/system/df', handle: systemDataUsage(backend) },
  ];
}
