// berth's images in the shapes of the wire.
import type { DeleteItem } from '../../../image/image-removal.js';
import type { HistoryRow, Image } from '../../../image/image-store.js';
import type { HistoryResponseItem, ImageDeleteResponseItem, ImageInspect, ImageSummary } from '../../types/image.js';

/**
 * The container config of an image as Docker shows it: decoded into Go's container.Config and
 * encoded again, so every field without omitempty appears, in the struct's order.
 */
export function toContainerConfig(raw: Record<string, unknown> | null | undefined): Record<string, unknown> {
  const c = raw ?? {};
  const out: Record<string, unknown> = {};
  const field = (name: string, fallback: unknown) => (out[name] = c[name] ?? fallback);
  const optional = (name: string) => {
    if (c[name] !== undefined && c[name] !== null && c[name] !== '' && c[name] !== false) out[name] = c[name];
  };
  field('Hostname', '');
  field('Domainname', '');
  field('User', '');
  field('AttachStdin', false);
  field('AttachStdout', false);
  field('AttachStderr', false);
  optional('ExposedPorts');
  field('Tty', false);
  field('OpenStdin', false);
  field('StdinOnce', false);
  field('Env', null);
  field('Cmd', null);
  optional('Healthcheck');
  optional('ArgsEscaped');
  field('Image', '');
  field('Volumes', null);
  field('WorkingDir', '');
  field('Entrypoint', null);
  optional('NetworkDisabled');
  optional('MacAddress');
  field('OnBuild', null);
  field('Labels', null);
  optional('StopSignal');
  optional('StopTimeout');
  optional('Shell');
  return out;
}

export function toImageInspect(image: Image, layerDirs: string[]): ImageInspect {
  const c = image.config;
  const data: Record<string, string> = {};
  if (layerDirs.length > 0) data.UpperDir = layerDirs[0];
  if (layerDirs.length > 1) data.LowerDir = layerDirs.slice(1).join(':');
  return {
    Id: image.id,
    RepoTags: image.repoTags,
    RepoDigests: image.repoDigests,
    Parent: image.parent ?? '',
    Comment: c.comment ?? '',
    Created: c.created ?? '0001-01-01T00:00:00Z',
    Container: c.container ?? '',
    ContainerConfig: toContainerConfig(c.container_config),
    DockerVersion: c.docker_version ?? '',
    Author: c.author ?? '',
    Config: toContainerConfig(c.config),
    Architecture: c.architecture ?? '',
    ...(c.variant ? { Variant: c.variant } : {}),
    Os: c.os ?? '',
    ...(c.os_version ? { OsVersion: c.os_version } : {}),
    Size: image.sizeBytes,
    VirtualSize: image.sizeBytes,
    GraphDriver: { Data: data, Name: 'overlay2' },
    RootFS: { Type: c.rootfs.type, Layers: [...c.rootfs.diff_ids] },
    Metadata: { LastTagTime: image.lastTagTime ?? '0001-01-01T00:00:00Z' },
  };
}

/** `sharedSizeBytes` when it was asked for; dockerd answers -1 otherwise. */
export function toImageSummary(image: Image, sharedSizeBytes = -1): ImageSummary {
  const tags = image.repoTags;
  const digests = image.repoDigests;
  const labels = (image.config.config?.Labels as Record<string, string> | null | undefined) ?? null;
  return {
    Id: image.id,
    ParentId: image.parent ?? '',
    // dockerd shows an untagged image as <none>:<none>
    RepoTags: tags.length > 0 ? tags : ['<none>:<none>'],
    RepoDigests: digests.length > 0 ? digests : tags.length > 0 ? [] : ['<none>@<none>'],
    Created: image.config.created ? Math.floor(Date.parse(image.config.created) / 1000) : 0,
    Size: image.sizeBytes,
    SharedSize: sharedSizeBytes,
    VirtualSize: image.sizeBytes,
    Labels: labels,
    Containers: -1,
  };
}

export function toHistory(rows: HistoryRow[]): HistoryResponseItem[] {
  return rows.map((row) => ({
    Id: row.id ?? '<missing>',
    Created: row.entry.created ? Math.floor(Date.parse(row.entry.created) / 1000) : 0,
    CreatedBy: row.entry.created_by ?? '',
    Tags: row.id !== null ? row.repoTags : null,
    Size: row.sizeBytes,
    Comment: row.entry.comment ?? '',
  }));
}

export function toDeleteItems(items: DeleteItem[]): ImageDeleteResponseItem[] {
  return items.map((i) => (i.untagged !== undefined ? { Untagged: i.untagged } : { Deleted: i.deleted as string }));
}
