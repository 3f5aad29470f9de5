// The Swarm, Node, Secret and Config operations, and the manager check of the operations still
// to come: services and tasks answer dockerd's 503 off a manager, and on a manager an empty list
// or 501 until their area lands.
import { EngineError } from '../../../errors.js';
import { FilterArgs } from '../../../lib/filters.js';
import { queryBool } from '../../query.js';
import type { Handler, Route } from '../../router.js';
import type { SwarmBackend } from './backend.js';
import { toConfig, toNode, toSecret, toSwarm } from './to-api.js';
import type { ObjectView } from '../../../swarm/objects/secret-control.js';
import type { ObjectKind } from '../../../swarm/objects/secret-records.js';

const LATER_OPERATIONS: ReadonlyArray<[operationId: string, method: Route['method'], path: string, what: string]> = [
  ['ServiceList', 'GET', '/services', 'list'],
  ['ServiceCreate', 'POST', '/services/create', 'services'],
  ['ServiceInspect', 'GET', '/services/{id}', 'services'],
  ['ServiceDelete', 'DELETE', '/services/{id}', 'services'],
  ['ServiceUpdate', 'POST', '/services/{id}/update', 'services'],
  ['ServiceLogs', 'GET', '/services/{id}/logs', 'services'],
  ['TaskList', 'GET', '/tasks', 'list'],
  ['TaskInspect', 'GET', '/tasks/{id}', 'tasks'],
  ['TaskLogs', 'GET', '/tasks/{id}/logs', 'tasks'],
];

export function swarmRoutes(backend: SwarmBackend): Route[] {
  const later = (what: string): Handler => (ctx) => {
    backend.requireManager();
    // nothing of these kinds can exist yet: a list is empty
    if (what === 'list') return ctx.json([]);
    throw new EngineError('notImplemented', `berth does not support ${what} yet`);
  };
  return [
    { operationId: 'SwarmInit', method: 'POST', path: '/swarm/init', handle: async (ctx) => ctx.json(await backend.init(await ctx.readJson())) },
    {
      operationId: 'SwarmJoin',
      method: 'POST',
      path: '/swarm/join',
      handle: async (ctx) => {
        await backend.join(await ctx.readJson());
        ctx.res.writeHead(200).end();
      },
    },
    {
      operationId: 'SwarmLeave',
      method: 'POST',
      path: '/swarm/leave',
      handle: async (ctx) => {
        await backend.leave(queryBool(ctx.query, 'force'));
        ctx.res.writeHead(200).end();
      },
    },
    { operationId: 'SwarmInspect', method: 'GET', path: '/swarm', handle: async (ctx) => ctx.json(toSwarm(await backend.inspect())) },
    {
      operationId: 'SwarmUpdate',
      method: 'POST',
      path: '/swarm/update',
      handle: async (ctx) => {
        const q = ctx.query;
        await backend.update(q.get('version'), await ctx.readJson(), { workerToken: queryBool(q, 'rotateWorkerToken'), managerToken: queryBool(q, 'rotateManagerToken'), unlockKey: queryBool(q, 'rotateManagerUnlockKey') });
        ctx.res.writeHead(200).end();
      },
    },
    { operationId: 'SwarmUnlockkey', method: 'GET', path: '/swarm/unlockkey', handle: async (ctx) => ctx.json({ UnlockKey: await backend.unlockKey() }) },
    {
      operationId: 'SwarmUnlock',
      method: 'POST',
      path: '/swarm/unlock',
      handle: async (ctx) => {
        await backend.unlock(await ctx.readJson());
        ctx.res.writeHead(200).end();
      },
    },
    {
      operationId: 'NodeList',
      method: 'GET',
      path: '/nodes',
      handle: async (ctx) => {
        const { nodes, tlsInfo } = await backend.listNodes(FilterArgs.fromJson(ctx.query.get('filters')));
        ctx.json(nodes.map((n) => toNode(n, tlsInfo)));
      },
    },
    {
      operationId: 'NodeInspect',
      method: 'GET',
      path: '/nodes/{id}',
      handle: async (ctx) => {
        const { node, tlsInfo } = await backend.inspectNode(ctx.params.id!);
        ctx.json(toNode(node, tlsInfo));
      },
    },
    {
      operationId: 'NodeUpdate',
      method: 'POST',
      path: '/nodes/{id}/update',
      handle: async (ctx) => {
        await backend.updateNode(ctx.params.id!, ctx.query.get('version'), await ctx.readJson());
        ctx.res.writeHead(200).end();
      },
    },
    {
      operationId: 'NodeDelete',
      method: 'DELETE',
      path: '/nodes/{id}',
      handle: async (ctx) => {
        await backend.removeNode(ctx.params.id!, queryBool(ctx.query, 'force'));
        ctx.res.writeHead(200).end();
      },
    },
    ...objectRoutes(backend, 'secret', 'Secret', toSecret),
    ...objectRoutes(backend, 'config', 'Config', toConfig),
    ...LATER_OPERATIONS.map(([operationId, method, path, what]): Route => ({ operationId, method, path, handle: later(what) })),
  ];
}

/** /secrets or /configs: create (201 {ID}), list, inspect, update (200), delete (204). */
function objectRoutes(backend: SwarmBackend, kind: ObjectKind, tag: 'Secret' | 'Config', toApi: (view: ObjectView) => unknown): Route[] {
  const base = `/${kind}s`;
  const objects = () => backend.objects(kind);
  return [
    {
      operationId: `${tag}List`,
      method: 'GET',
      path: base,
      handle: async (ctx) => ctx.json((await objects().list(FilterArgs.fromJson(ctx.query.get('filters')))).map(toApi)),
    },
    { operationId: `${tag}Create`, method: 'POST', path: `${base}/create`, handle: async (ctx) => ctx.json({ ID: await objects().create(await ctx.readJson()) }, 201) },
    { operationId: `${tag}Inspect`, method: 'GET', path: `${base}/{id}`, handle: async (ctx) => ctx.json(toApi(await objects().inspect(ctx.params.id!))) },
    {
      operationId: `${tag}Delete`,
      method: 'DELETE',
      path: `${base}/{id}`,
      handle: async (ctx) => {
        await objects().remove(ctx.params.id!);
        ctx.res.writeHead(204).end();
      },
    },
    {
      operationId: `${tag}Update`,
      method: 'POST',
      path: `${base}/{id}/update`,
      handle: async (ctx) => {
        await objects().update(ctx.params.id!, ctx.query.get('version'), await ctx.readJson());
        ctx.res.writeHead(200).end();
      },
    },
  ];
}
