// libnetwork's overlay PeerRecord, the value of each overlay_peer_table entry: where an endpoint
// of an overlay network lives. Encoded as Docker's engine gossips it (proto/libnetwork/overlay.proto);
// read back into the data plane's shape, its address without the prefix length.
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { isIPv4 } from 'node:net';
import { PeerRecordSchema } from '../../generated/libnetwork/overlay_pb.js';
import type { PeerRecord } from '../../network/overlay/overlay-data-plane.js';
import { PEER_TABLE } from './network-tables.js';
import type { OwnedEntry } from './table-store.js';

export function encodePeerRecord(record: { endpointIp: string; endpointMac: string; tunnelEndpointIp: string }): Uint8Array {
  return toBinary(PeerRecordSchema, create(PeerRecordSchema, record));
}

/** The overlay_peer_table entry of this node's endpoint `key` at `address` (with its prefix length). */
export function peerEntry(networkId: string, key: string, endpoint: { address: string; mac: string }, dataPathAddr: string): OwnedEntry {
  return { networkId, table: PEER_TABLE, key, value: encodePeerRecord({ endpointIp: endpoint.address, endpointMac: endpoint.mac, tunnelEndpointIp: dataPathAddr }) };
}

/** The peer, or undefined for bytes that are not one with IPv4 addresses. */
export function decodePeerRecord(bytes: Uint8Array): PeerRecord | undefined {
  let record;
  try {
    record = fromBinary(PeerRecordSchema, bytes);
  } catch {
    return undefined;
  }
  const endpointIp = record.endpointIp.split('/')[0] ?? '';
  if (!isIPv4(endpointIp) || !isIPv4(record.tunnelEndpointIp) || record.endpointMac === '') return undefined;
  return { endpointIp, endpointMac: record.endpointMac, tunnelEndpointIp: record.tunnelEndpointIp };
}
