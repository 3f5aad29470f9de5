// GET /system/df: what the data root holds: images and their layers from the image store,
// containers with their own layer's size. Volumes and build cache are empty lists until those
// areas exist in berth.
import { FilterArgs } from '../../../lib/filters.js';
import type { Handler } from '../../router.js';
import type { ContainerBackend } from '../container/backend.js';
import { toContainerSummary } from '../container/to-api.js';
import type { ImageBackend } from '../image/backend.js';
import { toImageSummary } from '../image/to-api.js';

export function systemDataUsage(images: ImageBackend, containers: ContainerBackend): Handler {
  return (ctx) => {
    const { layersSizeBytes, sharedSizeBytes } = images.usage();
    const views = containers.list({ all: true, limit: -1, size: true, filters: FilterArgs.empty() });
    const users = new Map<string, number>();
    for (const v of views) users.set(v.record.image, (users.get(v.record.image) ?? 0) + 1);
    ctx.json({
      LayersSize: layersSizeBytes,
      Images: images.list(FilterArgs.empty()).map((i) => ({ ...toImageSummary(i, sharedSizeBytes.get(i.id) ?? 0), Containers: users.get(i.id) ?? 0 })),
      Containers: views.map((v) => toContainerSummary(v, true)),
      Volumes: [],
      BuildCache: null,
      BuilderSize: 0,
    });
  };
}
