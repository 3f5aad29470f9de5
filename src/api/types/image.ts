// Wire types of the Image area, with the spec's definition names and PascalCase fields.

export interface ImageSummary {
  Id: string;
  ParentId: string;
  RepoTags: string[];
  RepoDigests: string[];
  Created: number;
  Size: number;
  SharedSize: number;
  VirtualSize: number;
  Labels: Record<string, string> | null;
  Containers: number;
}

export interface ImageInspect {
  Id: string;
  RepoTags: string[];
  RepoDigests: string[];
  Parent: string;
  Comment: string;
  Created: string;
  Container: string;
  ContainerConfig: Record<string, unknown>;
  DockerVersion: string;
  Author: string;
  Config: Record<string, unknown>;
  Architecture: string;
  Variant?: string;
  Os: string;
  OsVersion?: string;
  Size: number;
  VirtualSize: number;
  GraphDriver: { Data: Record<string, string>; Name: string };
  RootFS: { Type: string; Layers: string[] };
  Metadata: { LastTagTime: string };
}

export interface HistoryResponseItem {
  Id: string;
  Created: number;
  CreatedBy: string;
  Tags: string[] | null;
  Size: number;
  Comment: string;
}

export interface ImageDeleteResponseItem {
  Untagged?: string;
  Deleted?: string;
}
