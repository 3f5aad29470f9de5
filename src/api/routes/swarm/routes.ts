// The swarm's own operations (swarm, nodes, services, tasks, secrets, configs) on a node outside
// any swarm, which every berth node is until `swarm init` and `swarm join` land: each answers 503
// with dockerd's words, as dockerd 20.10 does on such a node (leave says the node is in no swarm).
// Init and join are not routed yet.
import { EngineError, NOT_SWARM_MANAGER_MESSAGE } from '../../../errors.js';
import type { Handler, Route } from '../../router.js';

const notManager: Handler = () => {
  throw new EngineError('unavailable', NOT_SWARM_MANAGER_MESSAGE);
};

const notInSwarm: Handler = () => {
  throw new EngineError('unavailable', 'This node is not part of a swarm');
};

const MANAGER_OPERATIONS: ReadonlyArray<[operationId: string, method: Route['method'], path: string]> = [
  ['SwarmInspect', 'GET', '/swarm'],
  ['SwarmUpdate', 'POST', '/swarm/update'],
  ['SwarmUnlockkey', 'GET', '/swarm/unlockkey'],
  ['SwarmUnlock', 'POST', '/swarm/unlock'],
  ['NodeList', 'GET', '/nodes'],
  ['NodeInspect', 'GET', '/nodes/{id}'],
  ['NodeDelete', 'DELETE', '/nodes/{id}'],
  ['NodeUpdate', 'POST', '/nodes/{id}/update'],
  ['ServiceList', 'GET', '/services'],
  ['ServiceCreate', 'POST', '/services/create'],
  ['ServiceInspect', 'GET', '/services/{id}'],
  ['ServiceDelete', 'DELETE', '/services/{id}'],
  ['ServiceUpdate', 'POST', '/services/{id}/update'],
  ['ServiceLogs', 'GET', '/services/{id}/logs'],
  ['TaskList', 'GET', '/tasks'],
  ['TaskInspect', 'GET', '/tasks/{id}'],
  ['TaskLogs', 'GET', '/tasks/{id}/logs'],
  ['SecretList', 'GET', '/secrets'],
  ['SecretCreate', 'POST', '/secrets/create'],
  ['SecretInspect', 'GET', '/secrets/{id}'],
  ['SecretDelete', 'DELETE', '/secrets/{id}'],
  ['SecretUpdate', 'POST', '/secrets/{id}/update'],
  ['ConfigList', 'GET', '/configs'],
  ['ConfigCreate', 'POST', '/configs/create'],
  ['ConfigInspect', 'GET', '/configs/{id}'],
  ['ConfigDelete', 'DELETE', '/configs/{id}'],
  ['ConfigUpdate', 'POST', '/configs/{id}/update'],
];

export function swarmRoutes(): Route[] {
  return [
    ...MANAGER_OPERATIONS.map(([operationId, method, path]): Route => ({ operationId, method, path, handle: notManager })),
    { operationId: 'SwarmLeave', method: 'POST', path: '/swarm/leave', handle: notInSwarm },
  ];
}
