// What the archive routes (docker cp both ways, export, diff) need from the engine.
import type { Readable, Writable } from 'node:stream';
import type { TarSession } from '../../../container/archive/container-archive.js';
import type { StreamSession } from '../../../lib/stream-session.js';
import type { Change } from '../../../rootfs/rootfs-store.js';

export interface ContainerArchiveBackend {
  /** The X-Docker-Container-Path-Stat value of a path; NoSuchContainer, or notFound in dockerd's words. */
  statPath(ref: string, path: string): Promise<string>;
  /** The stat header value, and the session that sends the tar of the path. */
  archivePath(ref: string, path: string): Promise<TarSession & { stat: string }>;
  /** Extracts the tar (plain, gzip or zstd) into the directory at `path`. */
  extractToDir(ref: string, req: { path: string; body: Readable; noOverwriteDirNonDir: boolean; copyUIDGID: boolean }): Promise<void>;
  /** The session that sends the container's whole root filesystem, without its mounts, as a tar. */
  exportContainer(ref: string): Promise<StreamSession<Writable>>;
  changes(ref: string): Promise<Change[]>;
}
