// The Network area's operations.
import type { Route } from '../../router.js';
import type { NetworkBackend } from './backend.js';
import type { NetworkConnectBackend } from './connect-backend.js';
import { networkConnect, networkDisconnect } from './network-connect.js';
import { networkCreate } from './network-create.js';
import { networkDelete } from './network-delete.js';
import { networkInspect } from './network-inspect.js';
import { networkList } from './network-list.js';
import { networkPrune } from './network-prune.js';

export function networkRoutes(backend: NetworkBackend, connect: NetworkConnectBackend): Route[] {
  return [
    { operationId: 'NetworkList', method: 'GET', path: '/networks', handle: networkList(backend) },
    { operationId: 'NetworkInspect', method: 'GET', path: '/networks/{id}', handle: networkInspect(backend) },
    { operationId: 'NetworkDelete', method: 'DELETE', path: '/networks/{id}', handle: networkDelete(backend) },
    { operationId: 'NetworkCreate', method: 'POST', path: '/networks/create', handle: networkCreate(backend) },
    { operationId: 'NetworkConnect', method: 'POST', path: '/networks/{id}/connect', handle: networkConnect(connect) },
    { operationId: 'NetworkDisconnect', method: 'POST', path: '/networks/{id}/disconnect', handle: networkDisconnect(connect) },
    { operationId: 'NetworkPrune', method: 'POST', path: '/networks/prune', handle: networkPrune(backend) },
  ];
}
