// What containers need of the image store: an image by name or ID (NoSuchImage otherwise), and
// the directories of its layers, topmost first, which a root filesystem stacks.
import type { Image } from '../image/image-store.js';

export interface ContainerImages {
  get(refOrId: string): Image;
  layerDirs(image: Image): string[];
}
