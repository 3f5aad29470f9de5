// Wire types of the Network area, with the spec's definition names and PascalCase fields, in the
// order dockerd 20.10 writes them.

export interface IPAMConfig {
  Subnet?: string;
  IPRange?: string;
  Gateway?: string;
  AuxiliaryAddresses?: Record<string, string>;
}

export interface IPAM {
  Driver: string;
  Options: Record<string, string> | null;
  Config: IPAMConfig[];
}

export interface NetworkContainer {
  Name: string;
  EndpointID: string;
  MacAddress: string;
  IPv4Address: string;
  IPv6Address: string;
}

export interface Network {
  Name: string;
  Id: string;
  Created: string;
  Scope: string;
  Driver: string;
  EnableIPv6: boolean;
  IPAM: IPAM;
  Internal: boolean;
  Attachable: boolean;
  Ingress: boolean;
  ConfigFrom: { Network: string };
  ConfigOnly: boolean;
  Containers: Record<string, NetworkContainer> | null;
  Options: Record<string, string>;
  Labels: Record<string, string> | null;
  /** a swarm network's, on a verbose inspect */
  Services?: Record<string, { VIP: string; Ports: string[]; LocalLBIndex: number; Tasks: Array<{ Name: string; EndpointID: string; EndpointIP: string; Info: Record<string, string> }> }>;
}

export interface NetworkCreateResponse {
  Id: string;
  Warning: string;
}

export interface NetworkPruneResponse {
  NetworksDeleted: string[] | null;
}
