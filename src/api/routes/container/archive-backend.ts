// What the archive routes (docker cp both ways, export, diff) need from the engine.
import type { Readable } from 'node:stream';
import type { Change } from '../../../rootfs/rootfs-store.js';

export interface ContainerArchiveBackend {
  /** The X-Docker-Container-Path-Stat value of a path; NoSuchContainer, or notFound in dockerd's words. */
  statPath(ref: string, path: string): Promise<string>;
  /** The stat header value and the tar of the path (its release comes with the stream's end). */
  archivePath(ref: string, path: string): Promise<{ stat: string; archive: Readable }>;
  /** Extracts the tar (plain, gzip or zstd) into the directory at `path`. */
  extractToDir(ref: string, req: { path: string; body: Readable; noOverwriteDirNonDir: boolean; copyUIDGID: boolean }): Promise<void>;
  /** The container's whole root filesystem, without its mounts, as a tar. */
  exportContainer(ref: string): Promise<Readable>;
  changes(ref: string): Promise<Change[]>;
}
