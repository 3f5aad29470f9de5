// GET /system/df: what the data root holds. Containers, volumes and build cache are empty lists
// until those areas exist in berth; images and layers are counted from the image store.
import type { Handler } from '../../router.js';
import type { ImageBackend } from '../image/backend.js';
import { toImageSummary } from '../image/to-api.js';

export function systemDataUsage(images: ImageBackend): Handler {
  return (ctx) => {
    const { layersSizeBytes, sharedSizeBytes } = images.usage();
    ctx.json({
      LayersSize: layersSizeBytes,
      Images: images.list().map((i) => ({ ...toImageSummary(i, sharedSizeBytes.get(i.id) ?? 0), Containers: 0 })),
      Containers: [],
      Volumes: [],
      BuildCache: null,
      BuilderSize: 0,
    });
  };
}
