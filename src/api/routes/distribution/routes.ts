// The registry queries: POST /auth (SystemAuth), GET /distribution/{name}/json and GET
// /images/search. The credentials come in the body (auth) or X-Registry-Auth, for the request only.
import { atoi } from '../../query.js';
import type { Route } from '../../router.js';
import { headerOf } from '../image/image-create.js';
import type { DistributionBackend } from './backend.js';

export function distributionRoutes(backend: DistributionBackend): Route[] {
  return [
    {
      operationId: 'SystemAuth',
      method: 'POST',
      path: '/auth',
      handle: async (ctx) => {
        ctx.json(await backend.login(await ctx.readJson()));
      },
    },
    {
      operationId: 'DistributionInspect',
      method: 'GET',
      path: '/distribution/{name}/json',
      handle: async (ctx) => ctx.json(await backend.inspect(ctx.params.name, headerOf(ctx.req.headers['x-registry-auth']))),
    },
    {
      operationId: 'ImageSearch',
      method: 'GET',
      path: '/images/search',
      handle: async (ctx) => {
        const limit = ctx.query.get('limit');
        ctx.json(await backend.search(ctx.query.get('term') ?? '', limit ? atoi(limit) : 25, headerOf(ctx.req.headers['x-registry-auth'])));
      },
    },
  ];
}
