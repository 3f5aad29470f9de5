// GET /containers/json, GET /containers/{id}/json, DELETE /containers/{id},
// POST /containers/{id}/rename and POST /containers/prune.
import { invalidParameter } from '../../../errors.js';
import { FilterArgs } from '../../../lib/filters.js';
import { queryBool } from '../../query.js';
import type { Handler } from '../../router.js';
import type { ContainerBackend } from './backend.js';
import { toContainerInspect, toContainerSummary } from './to-api.js';

export function containerList(backend: ContainerBackend): Handler {
  return (ctx) => {
    const limitText = ctx.query.get('limit');
    const limit = limitText === null || limitText === '' ? -1 : Number(limitText);
    if (!Number.isInteger(limit)) throw invalidParameter(`strconv.Atoi: parsing ${JSON.stringify(limitText)}: invalid syntax`);
    const size = queryBool(ctx.query, 'size');
    const views = backend.list({ all: queryBool(ctx.query, 'all'), limit, size, filters: FilterArgs.fromJson(ctx.query.get('filters')) });
    ctx.json(views.map((v) => toContainerSummary(v, size)));
  };
}

export function containerInspect(backend: ContainerBackend): Handler {
  return (ctx) => {
    const size = queryBool(ctx.query, 'size');
    ctx.json(toContainerInspect(backend.inspect(ctx.params.id, { size }), size, ctx.api));
  };
}

export function containerDelete(backend: ContainerBackend): Handler {
  return async (ctx) => {
    await backend.remove(ctx.params.id, {
      force: queryBool(ctx.query, 'force'),
      removeVolumes: queryBool(ctx.query, 'v'),
      removeLink: queryBool(ctx.query, 'link'),
    });
    ctx.res.writeHead(204).end();
  };
}

export function containerRename(backend: ContainerBackend): Handler {
  return async (ctx) => {
    await backend.rename(ctx.params.id, ctx.query.get('name') ?? '');
    ctx.res.writeHead(204).end();
  };
}

export function containerPrune(backend: ContainerBackend): Handler {
  return async (ctx) => {
    const { ids, reclaimedBytes } = await backend.prune(FilterArgs.fromJson(ctx.query.get('filters')));
    ctx.json({ ContainersDeleted: ids.length > 0 ? ids : null, SpaceReclaimed: reclaimedBytes });
  };
}
