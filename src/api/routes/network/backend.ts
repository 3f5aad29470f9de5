// What the Network routes need from the engine (the network area serves it; NetworkConnect and
// NetworkDisconnect are the containers', connect-backend.ts).
import type { FilterArgs } from '../../../lib/filters.js';
import type { NetworkView } from '../../../network/network-service.js';

export interface NetworkBackend {
  /** The networks the filters keep, with their endpoints: on a swarm manager the swarm's too. */
  list(filters: FilterArgs): Promise<NetworkView[]>;
  /** By full ID, name or ID prefix; a scope keeps the networks of that scope only. */
  /** `verbose`: a swarm network's Services too */
  inspect(term: string, scope: string, verbose: boolean): Promise<NetworkView>;
  /** The body as sent: decoded and checked as dockerd does. */
  create(body: unknown): Promise<{ id: string; warning: string }>;
  /** The record, then its bridge, rules and DNS server; a swarm network is the swarm's to remove. */
  remove(term: string): Promise<void>;
  /** The names of the networks removed. */
  prune(filters: FilterArgs): Promise<string[]>;
}
