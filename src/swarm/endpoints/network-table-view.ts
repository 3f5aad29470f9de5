// A debug view of one of a node's network tables (GET /debug/networks/{id}/tables/{table}), as
// libnetwork's diagnostic server shows NetworkDB: each entry's key, the node that wrote it, and its
// raw bytes in base64; an endpoint_table entry also as its EndpointRecord's proto3 JSON, or why
// it cannot be read (the DNS and load balancers drop such a record, so it is worth seeing).
import { notFound } from '../../errors.js';
import type { EndpointRecordJson } from '../../generated/libnetwork/agent_pb.js';
import { decodeEndpointRecord, endpointRecordToJson } from '../endpoint-record.js';
import { ENDPOINT_TABLE, PEER_TABLE, type NetworkTables, type TableName } from './network-tables.js';

export interface NetworkTableView {
  Network: string;
  Table: TableName;
  Entries: NetworkTableEntryView[];
}

export interface NetworkTableEntryView {
  Key: string;
  /** the address of the node that wrote it, '' when unknown */
  Owner: string;
  /** the raw bytes, base64 */
  Value: string;
  Record?: EndpointRecordJson;
  RecordError?: string;
}

const TABLES: readonly string[] = [ENDPOINT_TABLE, PEER_TABLE];

/** By the network's full ID; 404 for a table berth does not keep or a network the node has no tables of. */
export function networkTableView(tables: NetworkTables, networkId: string, table: string): NetworkTableView {
  if (!TABLES.includes(table)) throw notFound(`no such table ${table}: the tables are ${TABLES.join(' and ')}`);
  if (!tables.hasNetwork(networkId)) {
    throw notFound(`network ${networkId} has no tables on this node: a node holds those of the swarm networks its tasks are on, by full ID`);
  }
  const name = table as TableName;
  const entries = [...tables.getTableByNetwork(name, networkId)]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]): NetworkTableEntryView => ({ Key: key, Owner: tables.ownerOf(key), Value: Buffer.from(value).toString('base64'), ...(name === ENDPOINT_TABLE ? decoded(value) : {}) }));
  return { Network: networkId, Table: name, Entries: entries };
}

function decoded(value: Uint8Array): Pick<NetworkTableEntryView, 'Record' | 'RecordError'> {
  try {
    return { Record: endpointRecordToJson(decodeEndpointRecord(value)) };
  } catch (err) {
    return { RecordError: (err as Error).message };
  }
}
