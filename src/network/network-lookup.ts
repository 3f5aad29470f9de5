// Which network a reference names, as dockerd resolves one: the full ID first, then a unique full
// name, then a unique ID prefix. dockerd words an ambiguity differently in each of its three
// resolvers (the inspect route, the delete route, the daemon's FindNetwork), and clients see each.
import { EngineError, notFound } from '../errors.js';
import type { NetworkRecord } from './network-record.js';

export type LookupWording = 'inspect' | 'remove' | 'daemon';

export function findNetwork(networks: readonly NetworkRecord[], term: string, wording: LookupWording): NetworkRecord {
  const exact = networks.find((n) => n.id === term);
  if (exact !== undefined) return exact;
  const byName = networks.filter((n) => n.name === term);
  if (byName.length === 1) return byName[0];
  if (byName.length > 1) throw ambiguous(term, byName.length, wording === 'daemon' ? 'on name' : 'based on name', wording);
  const byPrefix = networks.filter((n) => n.id.startsWith(term));
  if (byPrefix.length === 1) return byPrefix[0];
  if (byPrefix.length > 1) throw ambiguous(term, byPrefix.length, 'based on ID prefix', wording);
  throw noSuchNetwork(term);
}

/** libnetwork's ErrNoSuchNetwork. */
export function noSuchNetwork(term: string): EngineError {
  return notFound(`network ${term} not found`);
}

function ambiguous(term: string, count: number, how: string, wording: LookupWording): EngineError {
  // the inspect route wraps the error (errors.Wrapf), the others print the count after it
  const message =
    wording === 'inspect' ? `${count} matches found ${how}: network ${term} is ambiguous` : `network ${term} is ambiguous (${count} matches found ${how})`;
  return new EngineError('invalidParameter', message);
}
