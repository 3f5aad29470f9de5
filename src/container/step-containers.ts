// What the builder (src/build) does with containers, as dockerd's builder does through its
// backend (moby v20.10 builder/dockerfile/containerbackend.go, daemon/commit.go CommitBuildStep):
// a step's container made through the typed create from the config the builder computed, run with
// its output streamed until it exits, its root filesystem mounted for a COPY or a WORKDIR, its
// changes committed as an image whose parent is the container's image, and removed.
import type { Digest } from '../image/digest.js';
import type { FrameSink } from '../lib/stream-session.js';
import type { RootfsStore } from '../rootfs/rootfs-store.js';
import { attachContainer, type AttachDeps } from './attach/container-attach.js';
import { CURRENT_API_BEHAVIOURS } from './config/create-behaviours.js';
import type { CreateLimits } from './config/create-limits.js';
import { shapeConfig } from './config/host-config-defaults.js';
import { normalizeCreate } from './config/normalize-create.js';
import type { ContainerConfig, HostConfig } from './config/types.js';
import type { ContainerImages } from './container-images.js';

export interface StepContainersDeps extends AttachDeps {
  rootfs: RootfsStore;
  images: ContainerImages;
  limits: CreateLimits;
  dataRoot: string;
}

export interface StepCommit {
  /** the new image's config */
  config: ContainerConfig;
  /** the config the step is known by in the build cache (its Cmd is the step's) */
  containerConfig: ContainerConfig;
  author: string;
  /** whether the image names the container (a COPY's does not: dockerd makes it without one) */
  namesContainer: boolean;
}

export function stepContainers(deps: StepContainersDeps) {
  const { service, rootfs, images } = deps;
  return {
    /** Makes a container of `imageId` with exactly this config and host config; dockerd's create warnings come back. */
    async create(imageId: string, config: ContainerConfig, hostConfig: HostConfig): Promise<{ id: string; warnings: string[] }> {
      // a FROM scratch stage's steps have no image
      const image = imageId === '' ? undefined : images.get(imageId);
      const body = { config: { ...structuredClone(config), Image: imageId }, hostConfig: structuredClone(hostConfig), networkingConfig: {} };
      const { warnings, ...normalized } = normalizeCreate({ body, api: CURRENT_API_BEHAVIOURS, image: image?.config.config ?? null, limits: deps.limits, dataRoot: deps.dataRoot });
      const layers = image === undefined ? { id: '' as Digest, topLayer: null, layerDirs: [] } : { id: image.id, topLayer: image.topLayer, layerDirs: images.layerDirs(image) };
      const id = await service.create({ image: layers, ...normalized });
      return { id, warnings };
    },

    /** Starts the container with its output going to `out` as it comes; its exit code once it has ended. */
    async run(id: string, out: FrameSink, signal: AbortSignal): Promise<number> {
      const attach = attachContainer(deps, id, { stdin: false, stdout: true, stderr: true, stream: true, logs: false, detachKeys: undefined });
      const stop = new AbortController();
      const cancel = () => stop.abort();
      signal.addEventListener('abort', cancel, { once: true });
      const attached = attach.run({ out, signal: stop.signal });
      // a cancelled build stops its step (dockerd kills it), also when it is cancelled as it starts
      const onCancel = () => void service.kill(id, 'KILL').catch(() => {});
      try {
        await service.start(id);
        signal.addEventListener('abort', onCancel, { once: true });
        if (signal.aborted) onCancel();
        const { statusCode } = await service.wait(id, 'not-running');
        // output that could not go out to a client that left is no failure of the step
        await attached.catch((err: unknown) => {
          if (!signal.aborted) throw err;
        });
        return statusCode;
      } finally {
        signal.removeEventListener('abort', cancel);
        signal.removeEventListener('abort', onCancel);
        stop.abort();
        await attached.catch(() => {});
      }
    },

    /** Runs `work` on the container's root filesystem, mounted (its merged directory). */
    async withRootfs<T>(id: string, work: (mergedDir: string) => Promise<T>): Promise<T> {
      const lease = await rootfs.lease(id);
      try {
        return await work(lease.mergedDir);
      } finally {
        await lease.release();
      }
    },

    /** The container's changes as an image on its own image; the new image's ID. */
    async commit(id: string, c: StepCommit, signal?: AbortSignal): Promise<Digest> {
      const record = service.get(id);
      const commit = images.prepareCommit({ repo: '', tag: '' });
      const image = await commit(
        {
          parentId: record.image,
          changes: rootfs.exportChanges(id),
          config: shapeConfig(c.config) as Record<string, unknown>,
          containerConfig: shapeConfig(c.containerConfig) as Record<string, unknown>,
          containerId: c.namesContainer ? id : '',
          author: c.author,
          comment: '',
          createdBy: (c.containerConfig.Cmd ?? []).join(' '),
        },
        signal,
      );
      return image.id;
    },

    remove: (id: string) => service.remove(id, { force: true, removeVolumes: true }),
  };
}
