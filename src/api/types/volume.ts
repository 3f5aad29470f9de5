// Wire types of the Volume area, with the spec's definition names and PascalCase fields, in the
// order dockerd 20.10 writes them (Go sorts nothing here: the struct's order).

export interface Volume {
  /** absent when nothing says when (JSON drops undefined) */
  CreatedAt: string | undefined;
  Driver: string;
  Labels: Record<string, string> | null;
  Mountpoint: string;
  Name: string;
  Options: Record<string, string> | null;
  Scope: 'local' | 'global';
  Status?: Record<string, unknown>;
  UsageData?: { RefCount: number; Size: number };
}

export interface VolumeListResponse {
  Volumes: Volume[];
  Warnings: string[] | null;
}

export interface VolumePruneResponse {
  VolumesDeleted: string[];
  SpaceReclaimed: number;
}
