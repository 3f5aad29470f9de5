// What the Volume routes need from the engine (the volume area serves it).
import type { FilterArgs } from '../../../lib/filters.js';
import type { VolumeView } from '../../../volume/volume-service.js';

export interface VolumeBackend {
  list(filters: FilterArgs): Promise<{ volumes: VolumeView[]; warnings: string[] }>;
  inspect(name: string): Promise<VolumeView>;
  /** The body as sent: decoded and checked as dockerd does. */
  create(body: unknown): Promise<VolumeView>;
  remove(name: string, force: boolean): Promise<void>;
  prune(filters: FilterArgs): Promise<{ names: string[]; reclaimedBytes: number }>;
}
