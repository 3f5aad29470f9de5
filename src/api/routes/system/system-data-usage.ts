// GET /system/df: what the data root holds, area by area: images and their layers, containers
// with their own layer's size. Volumes and build cache are empty until those areas exist in berth.
import type { Handler } from '../../router.js';
import { toContainerSummary } from '../container/to-api.js';
import { toImageSummary } from '../image/to-api.js';
import type { SystemBackend } from './backend.js';

export function systemDataUsage(backend: SystemBackend): Handler {
  return (ctx) => {
    const usage = backend.dataUsage();
    ctx.json({
      LayersSize: usage.layersSizeBytes,
      Images: usage.images.map(({ image, sharedSizeBytes, containers }) => ({ ...toImageSummary(image, sharedSizeBytes), Containers: containers })),
      Containers: usage.containers.map((v) => toContainerSummary(v, true)),
      Volumes: [],
      BuildCache: null,
      BuilderSize: 0,
    });
  };
}
