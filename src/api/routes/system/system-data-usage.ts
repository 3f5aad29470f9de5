// GET /system/df: what the data root holds, area by area: images and their layers, containers
// with their own layer's size, volumes with their size and references. The build cache is empty
// until berth builds.
import type { Handler } from '../../router.js';
import { toContainerSummary } from '../container/to-api.js';
import { toImageSummary } from '../image/to-api.js';
import type { SystemBackend } from './backend.js';
import { toVolume } from '../volume/to-api.js';

export function systemDataUsage(backend: SystemBackend): Handler {
  return async (ctx) => {
    const usage = await backend.dataUsage();
    ctx.json({
      LayersSize: usage.layersSizeBytes,
      Images: usage.images.map(({ image, sharedSizeBytes, containers }) => ({ ...toImageSummary(image, sharedSizeBytes), Containers: containers })),
      Containers: usage.containers.map((v) => toContainerSummary(v, true)),
      Volumes: usage.volumes.map(({ view, size, refCount }) => ({ ...toVolume(view), UsageData: { RefCount: refCount, Size: size } })),
      BuildCache: null,
      BuilderSize: 0,
    });
  };
}
