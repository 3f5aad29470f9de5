// What containers need of the image store: an image by name or ID (NoSuchImage otherwise), the
// directories of its layers, topmost first, which a root filesystem stacks, and commits.
import type { CommittedImage, ImageCommit } from '../image/image-commit.js';
import type { Image } from '../image/image-store.js';

export interface ContainerImages {
  get(refOrId: string): Image;
  layerDirs(image: Image): string[];
  /** Checks the name a commit gives (400); the commit to run on a container's changes. */
  prepareCommit(name: { repo: string; tag: string }): (commit: ImageCommit, signal?: AbortSignal) => Promise<CommittedImage>;
}
