// What the Container routes need from the engine.
import type { CreateBehaviours } from '../../../container/config/create-behaviours.js';
import type { WaitCondition, WaitResult } from '../../../container/container-service.js';
import type { ContainerView } from '../../../container/container-view.js';
import type { FilterArgs } from '../../../lib/filters.js';
import type { ContainerArchiveBackend } from './archive-backend.js';
import type { ContainerControlBackend } from './control-backend.js';
import type { ContainerStreamsBackend } from './streams-backend.js';

export type { ContainerView } from '../../../container/container-view.js';

export interface ContainerBackend extends ContainerStreamsBackend, ContainerArchiveBackend, ContainerControlBackend {
  /** Decodes, checks and normalizes the body for the API version, and makes the container. */
  create(req: { body: unknown; name: string | undefined; api: CreateBehaviours }): Promise<{ id: string; warnings: string[] }>;
  inspect(ref: string, opts: { size: boolean }): ContainerView;
  list(q: { all: boolean; limit: number; size: boolean; filters: FilterArgs }): ContainerView[];
  start(ref: string): Promise<void>;
  stop(ref: string, timeoutS: number | undefined): Promise<void>;
  restart(ref: string, timeoutS: number | undefined): Promise<void>;
  kill(ref: string, signal: string | undefined): Promise<void>;
  pause(ref: string): Promise<void>;
  unpause(ref: string): Promise<void>;
  resize(ref: string, height: number, width: number): Promise<void>;
  /** Registers the wait at once; the promise settles when the condition is met. */
  wait(ref: string, condition: WaitCondition): Promise<WaitResult>;
  rename(ref: string, name: string): Promise<void>;
  remove(ref: string, opts: { force: boolean; removeVolumes: boolean; removeLink: boolean }): Promise<void>;
  prune(filters: FilterArgs): Promise<{ ids: string[]; reclaimedBytes: number }>;
}
