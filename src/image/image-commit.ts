// A container's changes made an image, as dockerd's CommitImage and NewChildImage make it (moby
// v20.10 daemon/images/image_commit.go, image/image.go): the changes become a layer on the parent
// image's layers, unless they are empty (an empty tar), which shows as an empty layer in the
// history only; the config is the one given, the container's own config is kept beside it, and
// the history gains an entry for the commit. The ID is the sha256 of the config's bytes, so the
// image saved and loaded into Docker's engine keeps it. The builder's steps commit through here too.
import type { Readable } from 'node:stream';
import { goArch } from '../lib/go-arch.js';
import { formatRfc3339Nano, nowNanos } from '../lib/timestamp.js';
import { BERTH_VERSION } from '../version.js';
import { sha256Digest, type Digest } from './digest.js';
import { parseImageConfig, type HistoryEntry } from './image-config.js';
import type { ImageStore } from './image-store.js';
import { familiarString, tagReference } from './reference.js';

/** The digest of an empty tar (two zero blocks): a layer that changes nothing (dockerd's DigestSHA256EmptyTar). */
export const EMPTY_LAYER_DIFF_ID: Digest = 'sha256:5f70bf18a086007016e948b04aed3b82103a36bea41755b6cddfaf10ace3c6ef';

export interface ImageCommit {
  /** the ID of the image the container was made from */
  parentId: string;
  /** the container's changes as a layer tar */
  changes: Readable;
  /** the new image's runtime config, in Go's container.Config shape */
  config: Record<string, unknown>;
  /** the config the container ran with */
  containerConfig: Record<string, unknown>;
  containerId: string;
  author: string;
  comment: string;
  /** the history's created_by: the container's command */
  createdBy: string;
}

export interface CommittedImage {
  id: Digest;
  /** the name it was given, familiar ("app:1"), or '' */
  ref: string;
}

/**
 * Checks the name a commit gives the image (400 for a bad one, before anything is paused or
 * read); the commit, to run on the container's changes.
 */
export function prepareCommit(store: ImageStore, name: { repo: string; tag: string }) {
  const ref = name.repo === '' ? undefined : tagReference(name.repo, name.tag);
  return (commit: ImageCommit, signal?: AbortSignal): Promise<CommittedImage> =>
    store.withLease(async (lease) => {
      // a build's FROM scratch stage commits on no image
      const parent = commit.parentId === '' ? undefined : store.get(commit.parentId);
      const parentConfig = parent === undefined ? undefined : store.config(parent.id);
      const parentDiffIds = parentConfig?.rootfs.diff_ids ?? [];
      const layer = await store.addLayer(lease, parent?.topLayer ?? null, undefined, { open: () => commit.changes }, signal);
      const empty = layer.diffId === EMPTY_LAYER_DIFF_ID;
      const created = formatRfc3339Nano(nowNanos());
      const entry: HistoryEntry = {
        created,
        ...(commit.author ? { author: commit.author } : {}),
        ...(commit.createdBy ? { created_by: commit.createdBy } : {}),
        ...(commit.comment ? { comment: commit.comment } : {}),
        ...(empty ? { empty_layer: true } : {}),
      };
      // the keys in the order dockerd writes them
      const config = {
        architecture: parentConfig?.architecture || goArch(),
        ...(commit.author ? { author: commit.author } : {}),
        ...(commit.comment ? { comment: commit.comment } : {}),
        config: commit.config,
        container: commit.containerId,
        container_config: commit.containerConfig,
        created,
        docker_version: `berth ${BERTH_VERSION}`,
        history: [...(parentConfig?.history ?? []), entry],
        os: parentConfig?.os || 'linux',
        rootfs: { type: 'layers', diff_ids: empty ? parentDiffIds : [...parentDiffIds, layer.diffId] },
        ...(parentConfig?.variant ? { variant: parentConfig.variant } : {}),
      };
      const configBytes = Buffer.from(JSON.stringify(config));
      const id = sha256Digest(configBytes);
      await store.commitImage(lease, id, configBytes, parseImageConfig(configBytes), parent?.id);
      if (ref === undefined) return { id, ref: '' };
      await store.tag(id, name.repo, name.tag);
      return { id, ref: familiarString(ref) };
    });
}
