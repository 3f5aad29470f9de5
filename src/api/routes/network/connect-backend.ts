// What POST /networks/{id}/connect and /disconnect need: a container joined to or taken off a
// network. The containers serve it, as they serve POST /commit: dockerd finds the container before
// the network, and the attachment is part of the container's run.
export interface NetworkConnectRequest {
  Container: string;
  /** EndpointSettings as sent, for the containers to decode as they decode create's */
  EndpointConfig: unknown;
}

export interface NetworkDisconnectRequest {
  Container: string;
  Force: boolean;
}

export interface NetworkConnectBackend {
  connect(networkRef: string, req: NetworkConnectRequest): Promise<void>;
  disconnect(networkRef: string, req: NetworkDisconnectRequest): Promise<void>;
}
