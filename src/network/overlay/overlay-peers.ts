// What a network's peers ask of the VXLAN device, and what must change to get there. A peer is
// libnetwork's overlay PeerRecord (an endpoint on another node); each gives one forwarding entry
// (its MAC to its node) and one neighbour entry (its address to its MAC, for proxy ARP), as
// libnetwork's peerdb programs them with learning off. Peers on this node need neither: their
// endpoints are on the bridge.
import type { FdbEntry, NeighbourEntry } from '../../runtime/overlay-links.js';

/** libnetwork's overlay.PeerRecord, the address without its prefix length. */
export interface PeerRecord {
  endpointIp: string;
  endpointMac: string;
  /** the data-path address of the node the endpoint is on */
  tunnelEndpointIp: string;
}

export interface PeerEntries {
  fdb: FdbEntry[];
  neighbours: NeighbourEntry[];
}

export interface PeerChanges {
  /** entries to add or replace */
  put: PeerEntries;
  remove: PeerEntries;
}

/** The entries `peers` ask for, leaving out those on the node at `localAddress`. */
export function peerEntries(peers: readonly PeerRecord[], localAddress: string): PeerEntries {
  const remote = peers.filter((p) => p.tunnelEndpointIp !== localAddress);
  return {
    fdb: remote.map((p) => ({ mac: p.endpointMac.toLowerCase(), dst: p.tunnelEndpointIp })),
    neighbours: remote.map((p) => ({ ip: p.endpointIp, mac: p.endpointMac.toLowerCase() })),
  };
}

/** What turns the entries there are into those wanted: the missing or different put, the others removed. */
export function diffPeerEntries(current: PeerEntries, wanted: PeerEntries): PeerChanges {
  const fdbKey = (e: FdbEntry) => `${e.mac} ${e.dst}`;
  const neighbourKey = (e: NeighbourEntry) => `${e.ip} ${e.mac}`;
  const wantedFdbMacs = new Set(wanted.fdb.map((e) => e.mac));
  const wantedIps = new Set(wanted.neighbours.map((e) => e.ip));
  return {
    put: { fdb: missing(wanted.fdb, current.fdb, fdbKey), neighbours: missing(wanted.neighbours, current.neighbours, neighbourKey) },
    // an entry whose MAC or address is still wanted is replaced by its put, not removed first
    remove: {
      fdb: missing(current.fdb, wanted.fdb, fdbKey).filter((e) => !wantedFdbMacs.has(e.mac)),
      neighbours: missing(current.neighbours, wanted.neighbours, neighbourKey).filter((e) => !wantedIps.has(e.ip)),
    },
  };
}

function missing<T>(from: readonly T[], there: readonly T[], key: (e: T) => string): T[] {
  const keys = new Set(there.map(key));
  return from.filter((e) => !keys.has(key(e)));
}
