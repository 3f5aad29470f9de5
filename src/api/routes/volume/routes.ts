// The Volume area's operations: GET /volumes (Warnings null when there are none), create (201),
// inspect, DELETE (204; force only spares a missing volume), prune (VolumesDeleted [] when none).
import { FilterArgs } from '../../../lib/filters.js';
import { queryBool } from '../../query.js';
import type { Route } from '../../router.js';
import type { VolumeListResponse, VolumePruneResponse } from '../../types/volume.js';
import type { VolumeBackend } from './backend.js';
import { toVolume } from './to-api.js';

export function volumeRoutes(backend: VolumeBackend): Route[] {
  return [
    {
      operationId: 'VolumeList',
      method: 'GET',
      path: '/volumes',
      handle: async (ctx) => {
        const { volumes, warnings } = await backend.list(FilterArgs.fromJson(ctx.query.get('filters')));
        ctx.json({ Volumes: volumes.map(toVolume), Warnings: warnings.length > 0 ? warnings : null } satisfies VolumeListResponse);
      },
    },
    {
      operationId: 'VolumeCreate',
      method: 'POST',
      path: '/volumes/create',
      handle: async (ctx) => ctx.json(toVolume(await backend.create(await ctx.readJson())), 201),
    },
    {
      operationId: 'VolumeInspect',
      method: 'GET',
      path: '/volumes/{name}',
      handle: async (ctx) => ctx.json(toVolume(await backend.inspect(ctx.params.name))),
    },
    {
      operationId: 'VolumeDelete',
      method: 'DELETE',
      path: '/volumes/{name}',
      handle: async (ctx) => {
        await backend.remove(ctx.params.name, queryBool(ctx.query, 'force'));
        ctx.res.writeHead(204).end();
      },
    },
    {
      operationId: 'VolumePrune',
      method: 'POST',
      path: '/volumes/prune',
      handle: async (ctx) => {
        const { names, reclaimedBytes } = await backend.prune(FilterArgs.fromJson(ctx.query.get('filters')));
        ctx.json({ VolumesDeleted: names, SpaceReclaimed: reclaimedBytes } satisfies VolumePruneResponse);
      },
    },
  ];
}
