// The network tables on a node (network-tables.ts, endpoint-changes.ts) and in the store
// (table-store.ts, on a real LocalStore): snapshots turned into NetworkDB's events, Docker's newer
// rules for what a change means, and a node's entries living on its session's lease.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import pino from 'pino';
import { ClusterState } from '../cluster/cluster-state.js';
import { encodeEndpointRecord, type EndpointRecordInit } from '../endpoint-record.js';
import { LocalStore } from '../store/local-store.js';
import { endpointChanges } from './endpoint-changes.js';
import { ENDPOINT_TABLE, NetworkTables, PEER_TABLE, type TableEvent } from './network-tables.js';
import { publishNodeEntries, tablesOf } from './table-store.js';

const log = pino({ level: 'silent' });
const scratch = mkdtempSync(path.join(os.tmpdir(), 'berth-tables-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const record = (init: EndpointRecordInit) => encodeEndpointRecord({ name: 'web.1.t1', serviceName: 'web', serviceId: 's1', virtualIp: '10.0.1.2', endpointIp: '10.0.1.5', ...init });

describe('NetworkTables', () => {
  it('turns snapshots into create, update and delete events with the values before and after', () => {
    const tables = new NetworkTables();
    const events: TableEvent[] = [];
    tables.watch(ENDPOINT_TABLE, (e) => events.push(e));
    const a = record({});
    const b = record({ serviceDisabled: true });
    tables.apply({ n1: { [ENDPOINT_TABLE]: [{ key: 'e1', value: a }] } });
    tables.apply({ n1: { [ENDPOINT_TABLE]: [{ key: 'e1', value: a }] } });
    tables.apply({ n1: { [ENDPOINT_TABLE]: [{ key: 'e1', value: b }] } });
    tables.apply({ n1: {} });
    assert.deepEqual(
      events.map((e) => [e.networkId, e.key, e.prev === undefined ? '-' : Buffer.from(e.prev).equals(a) ? 'a' : 'b', e.value === undefined ? '-' : Buffer.from(e.value).equals(a) ? 'a' : 'b']),
      [
        ['n1', 'e1', '-', 'a'],
        ['n1', 'e1', 'a', 'b'],
        ['n1', 'e1', 'b', '-'],
      ],
    );
    assert.equal(tables.getTableByNetwork(ENDPOINT_TABLE, 'n1').size, 0);
  });

  it('forgets every entry of a network the node leaves', () => {
    const tables = new NetworkTables();
    const events: TableEvent[] = [];
    tables.watch(PEER_TABLE, (e) => events.push(e));
    tables.apply({ n1: { [PEER_TABLE]: [{ key: 'e1', value: new Uint8Array([1]) }, { key: 'e2', value: new Uint8Array([2]) }] } });
    tables.apply({});
    assert.deepEqual(events.filter((e) => e.value === undefined).map((e) => e.key).sort(), ['e1', 'e2']);
  });
});

describe('endpointChanges', () => {
  const event = (prev?: Uint8Array, value?: Uint8Array): TableEvent => ({ table: ENDPOINT_TABLE, networkId: 'n1', key: 'e1', ...(prev ? { prev } : {}), ...(value ? { value } : {}) });
  const kinds = (e: TableEvent) => endpointChanges(e, log).map((c) => c.kind);

  it('adds, removes, and toggles on service_disabled alone', () => {
    assert.deepEqual(kinds(event(undefined, record({}))), ['add']);
    assert.deepEqual(kinds(event(record({}), undefined)), ['remove']);
    assert.deepEqual(kinds(event(record({}), record({ serviceDisabled: true }))), ['disable']);
    assert.deepEqual(kinds(event(record({ serviceDisabled: true }), record({}))), ['enable']);
    assert.deepEqual(kinds(event(record({}), record({}))), []);
  });

  it('handles any other change as the old record removed, then the new one added', () => {
    const changes = endpointChanges(event(record({}), record({ endpointIp: '10.0.1.6' })), log);
    assert.deepEqual(changes.map((c) => [c.kind, c.record.endpointIp]), [
      ['remove', '10.0.1.5'],
      ['add', '10.0.1.6'],
    ]);
  });

  it('drops a record without a name, with a bad IP, or that cannot be read', () => {
    assert.deepEqual(kinds(event(undefined, record({ name: '' }))), []);
    assert.deepEqual(kinds(event(undefined, record({ endpointIp: 'x' }))), []);
    assert.deepEqual(kinds(event(undefined, new Uint8Array([0xff, 0xff]))), []);
  });
});

describe('the tables in the store', () => {
  it('keeps a node’s entries on its session’s lease, exactly the set it publishes last', async () => {
    const store = await LocalStore.open(mkdtempSync(path.join(scratch, 'store-')));
    const cluster = new ClusterState(store);
    try {
      const lease = await cluster.openSession({ nodeId: 'node1', managerId: 'm' }, 60_000);
      await cluster.openSession({ nodeId: 'node2', managerId: 'm' }, 60_000);
      const a = record({});
      await publishNodeEntries(cluster, 'node1', [
        { networkId: 'n1', table: ENDPOINT_TABLE, key: 'e1', value: a },
        { networkId: 'n2', table: ENDPOINT_TABLE, key: 'e2', value: a },
      ]);
      await publishNodeEntries(cluster, 'node2', [{ networkId: 'n1', table: PEER_TABLE, key: 'e3', value: new Uint8Array([3]) }]);
      const both = await tablesOf(cluster, new Set(['n1']));
      assert.deepEqual(Object.keys(both), ['n1']);
      assert.deepEqual(both.n1![ENDPOINT_TABLE]!.map((e) => e.key), ['e1']);
      assert.deepEqual(both.n1![PEER_TABLE]!.map((e) => e.key), ['e3']);
      // a new set replaces the node's old one, and leaves the other node's alone
      await publishNodeEntries(cluster, 'node1', [{ networkId: 'n2', table: ENDPOINT_TABLE, key: 'e2', value: a }]);
      const after = await tablesOf(cluster, new Set(['n1', 'n2']));
      assert.equal(after.n1![ENDPOINT_TABLE], undefined);
      assert.deepEqual(after.n2![ENDPOINT_TABLE]!.map((e) => e.key), ['e2']);
      // the session gone, its entries go
      await store.revokeLease(lease);
      assert.equal((await tablesOf(cluster, new Set(['n2']))).n2![ENDPOINT_TABLE], undefined);
      await assert.rejects(publishNodeEntries(cluster, 'node1', []), /node node1 has no session/);
    } finally {
      await store.close();
    }
  });
});
