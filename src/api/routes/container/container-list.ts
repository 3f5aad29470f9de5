// GET /containers/json: docker ps, with dockerd's filters, limit and sizes.
import { invalidParameter } from '../../../errors.js';
import { FilterArgs } from '../../../lib/filters.js';
import { queryBool } from '../../query.js';
import type { Handler } from '../../router.js';
import type { ContainerBackend } from './backend.js';
import { toContainerSummary } from './to-api.js';

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
