// What the builder needs of the other areas, which the daemon hands it: images (found, pulled,
// tagged, and the children the cache looks through) and step containers (the container area's
// step-containers.ts). Declared here so that the build area depends on no area's internals.
import type { ContainerConfig, HostConfig } from '../container/config/types.js';
import type { Digest } from '../image/digest.js';
import type { Image } from '../image/image-store.js';
import type { AuthConfig } from '../image/registry/auth-header.js';
import type { FrameSink, ProgressSink } from '../lib/stream-session.js';

export interface BuildImages {
  /** by name or ID; NoSuchImage otherwise */
  get(refOrId: string): Image;
  find(refOrId: string): Image | undefined;
  /** the images committed on `id`; on '' (scratch), those committed on nothing */
  children(id: string): string[];
  /** pulls `ref` (its name as given), its progress on `out` */
  pull(ref: string, auth: AuthConfig | undefined, platform: string, out: ProgressSink, signal: AbortSignal): Promise<void>;
  tag(id: string, repo: string, tag: string): Promise<void>;
}

export interface StepCommit {
  config: ContainerConfig;
  containerConfig: ContainerConfig;
  author: string;
  namesContainer: boolean;
}

export interface BuildContainers {
  create(imageId: string, config: ContainerConfig, hostConfig: HostConfig): Promise<{ id: string; warnings: string[] }>;
  run(id: string, out: FrameSink, signal: AbortSignal): Promise<number>;
  withRootfs<T>(id: string, work: (mergedDir: string) => Promise<T>): Promise<T>;
  commit(id: string, c: StepCommit, signal?: AbortSignal): Promise<Digest>;
  remove(id: string): Promise<void>;
}
