// The debug view of a node's network tables: entries with their owner and raw bytes, endpoint
// records decoded to their proto3 JSON, and 404s for what the node does not hold.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeEndpointRecord } from '../endpoint-record.js';
import { networkTableView } from './network-table-view.js';
import { ENDPOINT_TABLE, NetworkTables, PEER_TABLE } from './network-tables.js';

const record = encodeEndpointRecord({ name: 'web.1.t1', serviceName: 'web', serviceId: 's1', virtualIp: '10.0.1.2', endpointIp: '10.0.1.5', aliases: ['api'] });
const garbage = Uint8Array.of(0xff, 0xff);
const peer = Uint8Array.of(1, 2, 3);

function tables(): NetworkTables {
  const t = new NetworkTables();
  t.apply({
    n1: {
      [ENDPOINT_TABLE]: [
        { key: 'e2', value: garbage, owner: '10.0.0.3' },
        { key: 'e1', value: record, owner: '10.0.0.2' },
      ],
      [PEER_TABLE]: [{ key: 'p1', value: peer }],
    },
    n2: {},
  });
  return t;
}

describe('networkTableView', () => {
  it('shows endpoint_table entries by key, with owner, base64 bytes and the decoded record (or why it cannot be read)', () => {
    const view = networkTableView(tables(), 'n1', ENDPOINT_TABLE);
    assert.equal(view.Network, 'n1');
    assert.equal(view.Table, ENDPOINT_TABLE);
    assert.deepEqual(view.Entries[0], {
      Key: 'e1',
      Owner: '10.0.0.2',
      Value: Buffer.from(record).toString('base64'),
      Record: { name: 'web.1.t1', serviceName: 'web', serviceId: 's1', virtualIp: '10.0.1.2', endpointIp: '10.0.1.5', aliases: ['api'] },
    });
    assert.equal(view.Entries[1]!.Key, 'e2');
    assert.equal(view.Entries[1]!.Record, undefined);
    assert.match(view.Entries[1]!.RecordError!, /./);
  });

  it('shows overlay_peer_table entries raw, without an owner when none is known', () => {
    assert.deepEqual(networkTableView(tables(), 'n1', PEER_TABLE).Entries, [{ Key: 'p1', Owner: '', Value: 'AQID' }]);
  });

  it('shows an empty table of a network the node holds', () => {
    assert.deepEqual(networkTableView(tables(), 'n2', ENDPOINT_TABLE).Entries, []);
  });

  it('answers 404 for a network the node holds no tables of, and for an unknown table', () => {
    assert.throws(() => networkTableView(tables(), 'n3', ENDPOINT_TABLE), {
      kind: 'notFound',
      message: 'network n3 has no tables on this node: a node holds those of the swarm networks its tasks are on, by full ID',
    });
    assert.throws(() => networkTableView(tables(), 'n1', 'endpoints'), { kind: 'notFound', message: 'no such table endpoints: the tables are endpoint_table and overlay_peer_table' });
  });
});
