// The swarm's spec as dockerd 20.10 and its swarmkit make it: at init, swarmkit's defaults
// (manager.go defaultClusterObject, raft.DefaultRaftConfig) with what the body sets over them
// (daemon/cluster/convert MergeSwarmSpecToGRPC: pointers when present, numbers when not zero); at
// update, the body whole (SwarmSpecToGRPC merges over an empty spec); checked by controlapi's
// validateClusterSpec, in its order and words.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SwarmSpec } from './records.js';
import { heartbeatPeriodMs, initSpec, nodeCertExpiryMs, updateSpec } from './swarm-spec.js';

const SECOND_NS = 1e9;
const HOUR_NS = 3600 * SECOND_NS;

/** What GET /swarm of a dockerd 20.10 shows after a plain `docker swarm init`, as the record keeps it. */
const DOCKERD_DEFAULTS: SwarmSpec = {
  name: 'default',
  labels: {},
  taskHistoryRetentionLimit: 5,
  raft: { snapshotInterval: 10000, keepOldSnapshots: 0, logEntriesForSlowFollowers: 500, electionTick: 10, heartbeatTick: 1 },
  heartbeatPeriodNs: 5000000000,
  ca: { nodeCertExpiryNs: 7776000000000000, externalCas: [], signingCaCert: '', signingCaKey: '', forceRotate: 0 },
  taskDefaults: {},
  autoLockManagers: false,
};

/** The same spec as the API shows it (and `docker swarm update` sends it back). */
const DOCKERD_DEFAULTS_WIRE = {
  Name: 'default',
  Labels: {},
  Orchestration: { TaskHistoryRetentionLimit: 5 },
  Raft: { SnapshotInterval: 10000, KeepOldSnapshots: 0, LogEntriesForSlowFollowers: 500, ElectionTick: 10, HeartbeatTick: 1 },
  Dispatcher: { HeartbeatPeriod: 5000000000 },
  CAConfig: { NodeCertExpiry: 7776000000000000 },
  TaskDefaults: {},
  EncryptionConfig: { AutoLockManagers: false },
};

function invalid(fn: () => unknown, message: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.equal((err as Error).message, message);
    assert.equal((err as { kind: string }).kind, 'invalidParameter');
    return true;
  });
}

describe('initSpec', () => {
  it("gives swarmkit's defaults for no spec, as dockerd 20.10 shows them", () => {
    assert.deepEqual(initSpec(undefined), DOCKERD_DEFAULTS);
    assert.deepEqual(initSpec({}), DOCKERD_DEFAULTS);
    assert.deepEqual(initSpec({ Name: 'default' }), DOCKERD_DEFAULTS);
  });

  it('takes only what the body sets: a pointer field when present (0 too), a number when not 0', () => {
    const spec = initSpec({
      Labels: { a: 'b' },
      // *int64 and *uint64 in dockerd's types: an explicit 0 is set
      Orchestration: { TaskHistoryRetentionLimit: 0 },
      Raft: { SnapshotInterval: 0, KeepOldSnapshots: 2, LogEntriesForSlowFollowers: 0, ElectionTick: 0, HeartbeatTick: 3 },
      Dispatcher: { HeartbeatPeriod: 0 },
      CAConfig: { NodeCertExpiry: 0 },
      EncryptionConfig: { AutoLockManagers: true },
    });
    assert.deepEqual(spec, {
      ...DOCKERD_DEFAULTS,
      labels: { a: 'b' },
      taskHistoryRetentionLimit: 0,
      raft: { ...DOCKERD_DEFAULTS.raft, keepOldSnapshots: 2, heartbeatTick: 3 },
      autoLockManagers: true,
    });
    // null is Go's nil pointer: the default stays
    assert.equal(initSpec({ Orchestration: { TaskHistoryRetentionLimit: null }, Raft: { KeepOldSnapshots: null } }).taskHistoryRetentionLimit, 5);
  });

  it('takes the numbers it is given', () => {
    const spec = initSpec({ Raft: { SnapshotInterval: 20, LogEntriesForSlowFollowers: 7, ElectionTick: 20, HeartbeatTick: 2 }, Dispatcher: { HeartbeatPeriod: 2 * SECOND_NS }, CAConfig: { NodeCertExpiry: 24 * HOUR_NS } });
    assert.deepEqual(spec.raft, { snapshotInterval: 20, keepOldSnapshots: 0, logEntriesForSlowFollowers: 7, electionTick: 20, heartbeatTick: 2 });
    assert.deepEqual([heartbeatPeriodMs(spec), nodeCertExpiryMs(spec)], [2000, 24 * 3600 * 1000]);
  });
});

describe('updateSpec', () => {
  it('takes the body whole: what it leaves out is zero, as dockerd 20.10 keeps it', () => {
    assert.deepEqual(updateSpec({ Labels: { x: 'y' } }), {
      name: 'default',
      labels: { x: 'y' },
      taskHistoryRetentionLimit: 0,
      raft: { snapshotInterval: 0, keepOldSnapshots: 0, logEntriesForSlowFollowers: 0, electionTick: 0, heartbeatTick: 0 },
      heartbeatPeriodNs: 0,
      ca: { nodeCertExpiryNs: 0, externalCas: [], signingCaCert: '', signingCaKey: '', forceRotate: 0 },
      taskDefaults: {},
      autoLockManagers: false,
    });
  });

  it('keeps the spec as it was when given back what GET /swarm showed (docker swarm update)', () => {
    assert.deepEqual(updateSpec(DOCKERD_DEFAULTS_WIRE), DOCKERD_DEFAULTS);
    assert.deepEqual(updateSpec({ ...DOCKERD_DEFAULTS_WIRE, Name: '' }), DOCKERD_DEFAULTS);
  });

  it("runs on the defaults where the spec has zeros (swarmkit's when a duration is unset)", () => {
    const spec = updateSpec({});
    assert.deepEqual([heartbeatPeriodMs(spec), nodeCertExpiryMs(spec)], [5000, 90 * 24 * 3600 * 1000]);
  });
});

describe('the spec checks, at init and at update', () => {
  for (const [call, fn] of [
    ['initSpec', initSpec],
    ['updateSpec', updateSpec],
  ] as const) {
    it(`${call}: wants the name "default" or none (dockerd's words)`, () => {
      for (const Name of ['swarm', 'Default', ' default']) invalid(() => fn({ Name }), 'swarm spec must be named "default"');
    });

    it(`${call}: wants node certificates to live an hour at least (swarmkit's words)`, () => {
      for (const NodeCertExpiry of [1e9, HOUR_NS - 1, -1]) invalid(() => fn({ CAConfig: { NodeCertExpiry } }), 'rpc error: code = InvalidArgument desc = minimum certificate expiry time is: 1h0m0s');
      assert.equal(fn({ CAConfig: { NodeCertExpiry: HOUR_NS } }).ca.nodeCertExpiryNs, HOUR_NS);
    });

    it(`${call}: refuses a negative heartbeat period (swarmkit's words)`, () => {
      invalid(() => fn({ Dispatcher: { HeartbeatPeriod: -5 } }), 'rpc error: code = InvalidArgument desc = heartbeat time period cannot be a negative duration');
    });

    it(`${call}: checks the certificate expiry before the heartbeat period, as validateClusterSpec`, () => {
      invalid(() => fn({ CAConfig: { NodeCertExpiry: 1e9 }, Dispatcher: { HeartbeatPeriod: -5 } }), 'rpc error: code = InvalidArgument desc = minimum certificate expiry time is: 1h0m0s');
    });
  }
});
