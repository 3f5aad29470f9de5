// What containers need of the network area: their networking wired for a run (before runc
// create) and undone at its end, the namespace another container joins with
// `--network container:<id>`, and the check at create that the networks a container names exist.
import type { NetworkAttachment, NetworkedContainer } from '../network/network-attachments.js';

export interface ContainerNetworks {
  /** 404 for a network NetworkMode or EndpointsConfig names that does not exist, as dockerd at create. */
  check(networkMode: string, endpointsConfig: Record<string, unknown> | null | undefined): void;
  attach(container: NetworkedContainer): Promise<NetworkAttachment>;
  /** Undoes the run's networking; nothing to undo is no error. */
  detach(containerId: string): Promise<void>;
  /** The file of the container's network namespace, while it runs on a network of its own. */
  netnsPath(containerId: string): string;
}
