// What the Container routes need from the engine.
import type { ContainerRecord } from '../../../container/container-record.js';
import type { WaitCondition, WaitResult } from '../../../container/container-service.js';
import type { FilterArgs } from '../../../lib/filters.js';
import type { ApiVersion } from '../../api-version.js';
import type { ContainerArchiveBackend } from './archive-backend.js';
import type { ContainerControlBackend } from './control-backend.js';
import type { ContainerStreamsBackend } from './streams-backend.js';

/** A container with what inspect and list show beside its record. */
export interface ContainerView {
  record: ContainerRecord;
  logPath: string;
  hostnamePath: string;
  hostsPath: string;
  resolvConfPath: string;
  /** exec instances created or running in it */
  execIds: string[];
  graphDriver: { lowerDir: string; mergedDir: string; upperDir: string; workDir: string };
  /** with size=1: bytes in the container's own layer, and with the image's */
  sizeRw?: number;
  sizeRootFs?: number;
}

export interface ContainerBackend extends ContainerStreamsBackend, ContainerArchiveBackend, ContainerControlBackend {
  create(req: { body: unknown; name: string | undefined; api: ApiVersion }): Promise<{ id: string; warnings: string[] }>;
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
