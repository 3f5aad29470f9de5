// What berth's own debug routes need from the engine (the swarm area serves them).
import type { NetworkTableView } from '../../../swarm/endpoints/network-table-view.js';

export interface DebugBackend {
  /** One of this node's copies of a swarm network's tables, by the network's full ID; 503 outside a swarm. */
  networkTable(networkId: string, table: string): NetworkTableView;
}
