import type { Handler } from '../../router.js';
import type { ImageBackend } from './backend.js';
import { toImageInspect } from './to-api.js';

export function imageInspect(backend: ImageBackend): Handler {
  return (ctx) => {
    const image = backend.get(ctx.params.name);
    ctx.json(toImageInspect(image, backend.layerDirs(image)));
  };
}
