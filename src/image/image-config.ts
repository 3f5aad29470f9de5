// The image configuration JSON (Docker's image spec v1.2 / OCI), kept as the exact bytes it
// arrived in: the image ID is the sha256 of those bytes.
import { invalidParameter } from '../errors.js';
import { isDigest, type Digest } from './digest.js';

export interface HistoryEntry {
  created?: string;
  created_by?: string;
  author?: string;
  comment?: string;
  empty_layer?: boolean;
}

export interface ImageConfig {
  architecture?: string;
  os?: string;
  variant?: string;
  os_version?: string;
  created?: string;
  author?: string;
  comment?: string;
  docker_version?: string;
  container?: string;
  parent?: string;
  config?: Record<string, unknown> | null;
  container_config?: Record<string, unknown> | null;
  history?: HistoryEntry[];
  rootfs: { type: string; diff_ids: Digest[] };
}

/** Parses and checks the fields berth relies on; anything else is kept as it came. */
export function parseImageConfig(bytes: Buffer | string): ImageConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(bytes.toString());
  } catch (err) {
    throw invalidParameter(`invalid image configuration: ${(err as Error).message}`, err);
  }
  const c = raw as ImageConfig;
  if (c === null || typeof c !== 'object' || typeof c.rootfs !== 'object' || c.rootfs === null) {
    throw invalidParameter('invalid image configuration: rootfs is missing');
  }
  if (c.rootfs.type !== 'layers' || !Array.isArray(c.rootfs.diff_ids) || !c.rootfs.diff_ids.every((d) => typeof d === 'string' && isDigest(d))) {
    throw invalidParameter('invalid image configuration: rootfs must be of type "layers" with sha256 diff_ids');
  }
  return c;
}
