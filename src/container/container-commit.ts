// POST /commit as the container area serves it (moby v20.10 daemon/commit.go): the container's own
// layer, and a config made of the request's (the container's when it sends none) with its
// changes applied and the container's config merged under it as dockerd merges them, become an
// image (image-commit.ts). A running container is paused while its layer is read, unless asked
// not to, with the pause and unpause events dockerd publishes; the container's `commit` event names
// the image. The name and the changes are checked before anything is paused.
import { conflict } from '../errors.js';
import { applyChanges, parseChanges } from '../image/config-changes.js';
import type { RootfsStore } from '../rootfs/rootfs-store.js';
import { decodeOptionalConfig } from './config/create-body.js';
import { shapeConfig } from './config/host-config-defaults.js';
import { mergeFromImage } from './config/merge-image-config.js';
import type { ContainerConfig } from './config/types.js';
import type { ContainerEvents } from './container-events.js';
import type { ContainerImages } from './container-images.js';
import type { ContainerService } from './container-service.js';

export interface CommitRequest {
  container: string;
  repo: string;
  tag: string;
  comment: string;
  author: string;
  /** pause a running container while its layer is read (dockerd's default from API 1.13) */
  pause: boolean;
  /** Dockerfile instructions applied to the config (ENV, CMD, WORKDIR, EXPOSE, VOLUME, ...) */
  changes: string[];
  /** the body: a container config; none (or one without config fields) for the container's own */
  config: unknown;
}

export interface CommitDeps {
  service: ContainerService;
  rootfs: RootfsStore;
  images: ContainerImages;
  events: ContainerEvents;
}

/** The new image's ID. */
export async function commitContainer(deps: CommitDeps, req: CommitRequest): Promise<string> {
  const record = deps.service.get(req.container);
  if (record.state.status === 'dead') throw conflict(`You cannot commit container ${record.id} which is Dead`);
  if (record.state.status === 'removing') throw conflict(`You cannot commit container ${record.id} which is being removed`);
  const changes = parseChanges(req.changes);
  const commit = deps.images.prepareCommit({ repo: req.repo, tag: req.tag });
  const given = decodeOptionalConfig(req.config) ?? structuredClone(record.config);
  const config = applyChanges(given as Record<string, unknown>, changes) as ContainerConfig;
  mergeFromImage(config, record.config);

  const pause = req.pause && record.state.status === 'running';
  if (pause) await deps.service.pause(record.id, { forCommit: true });
  let image;
  try {
    image = await commit({
      parentId: record.image,
      changes: deps.rootfs.exportChanges(record.id),
      config: shapeConfig(config) as Record<string, unknown>,
      containerConfig: shapeConfig(record.config) as Record<string, unknown>,
      containerId: record.id,
      author: req.author,
      comment: req.comment,
      createdBy: (record.config.Cmd ?? []).join(' '),
    });
  } finally {
    if (pause) await deps.service.unpause(record.id);
  }
  deps.events.publish(record, 'commit', { comment: req.comment, imageID: image.id, imageRef: image.ref });
  return image.id;
}
