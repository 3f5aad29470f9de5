// The Swarm, Node, Service, Task, Secret and Config operations.
import { FilterArgs } from '../../../lib/filters.js';
import type { RequestContext } from '../../context.js';
import { queryBool } from '../../query.js';
import type { Route } from '../../router.js';
import { headerOf } from '../image/image-create.js';
import type { ServiceBackend, SwarmBackend } from './backend.js';
import { swarmLogs } from './swarm-logs.js';
import { networkAttachments, serviceToApi, taskToApi, toConfig, toNode, toSecret, toSwarm } from './to-api.js';
import type { ObjectView } from '../../../swarm/objects/secret-control.js';
import type { ObjectKind } from '../../../swarm/objects/secret-records.js';

export function swarmRoutes(backend: SwarmBackend): Route[] {
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
    ...serviceRoutes(backend.services),
    ...objectRoutes(backend, 'secret', 'Secret', toSecret),
    ...objectRoutes(backend, 'config', 'Config', toConfig),
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

/** /services and /tasks: what the docker CLI's service commands and stacks call. */
function serviceRoutes(services: ServiceBackend): Route[] {
  const request = async (ctx: RequestContext) => ({ body: await ctx.readJson(), api: ctx.api, registryAuth: headerOf(ctx.req.headers['x-registry-auth']) });
  return [
    // before the inspects: a parameter spans slashes, and routes with as many are tried in this order
    { operationId: 'ServiceLogs', method: 'GET', path: '/services/{id}/logs', handle: swarmLogs(services, (id) => ({ service: id })) },
    { operationId: 'TaskLogs', method: 'GET', path: '/tasks/{id}/logs', handle: swarmLogs(services, (id) => ({ task: id })) },
    {
      operationId: 'ServiceList',
      method: 'GET',
      path: '/services',
      handle: async (ctx) => {
        const found = await services.list(FilterArgs.fromJson(ctx.query.get('filters')), queryBool(ctx.query, 'status'));
        ctx.json(found.map((f) => serviceToApi(f.service.value, f.service.version, f.status === undefined ? {} : { status: { RunningTasks: f.status.running, DesiredTasks: f.status.desired, CompletedTasks: f.status.completed } })));
      },
    },
    {
      operationId: 'ServiceCreate',
      method: 'POST',
      path: '/services/create',
      handle: async (ctx) => {
        const { id, warnings } = await services.create(await request(ctx));
        ctx.json({ ID: id, ...(warnings.length > 0 ? { Warnings: warnings } : {}) }, 201);
      },
    },
    {
      operationId: 'ServiceInspect',
      method: 'GET',
      path: '/services/{id}',
      handle: async (ctx) => {
        const { value, version } = await services.inspect(ctx.params.id!, queryBool(ctx.query, 'insertDefaults'));
        ctx.json(serviceToApi(value, version));
      },
    },
    {
      operationId: 'ServiceDelete',
      method: 'DELETE',
      path: '/services/{id}',
      handle: async (ctx) => {
        await services.remove(ctx.params.id!);
        ctx.res.writeHead(200).end();
      },
    },
    {
      operationId: 'ServiceUpdate',
      method: 'POST',
      path: '/services/{id}/update',
      handle: async (ctx) => {
        const q = ctx.query;
        const { warnings } = await services.update(ctx.params.id!, q.get('version'), { ...(await request(ctx)), rollback: q.get('rollback'), registryAuthFrom: q.get('registryAuthFrom') });
        ctx.json({ Warnings: warnings.length > 0 ? warnings : null });
      },
    },
    {
      operationId: 'TaskList',
      method: 'GET',
      path: '/tasks',
      handle: async (ctx) => ctx.json((await services.listTasks(FilterArgs.fromJson(ctx.query.get('filters')))).map((t) => taskToApi(t.value, t.version, { networks: networkAttachments(t.value) }))),
    },
    {
      operationId: 'TaskInspect',
      method: 'GET',
      path: '/tasks/{id}',
      handle: async (ctx) => {
        const { value, version } = await services.inspectTask(ctx.params.id!);
        ctx.json(taskToApi(value, version, { networks: networkAttachments(value) }));
      },
    },
  ];
}
