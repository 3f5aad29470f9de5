// What POST /commit needs from the engine: a container made an image (the container area serves it).
import type { CommitRequest } from '../../../container/container-commit.js';

export interface ImageCommitBackend {
  /** 404 for the container, 400 for a bad name or change, 409 for a dead container; the new image's ID. */
  commit(req: CommitRequest): Promise<string>;
}
