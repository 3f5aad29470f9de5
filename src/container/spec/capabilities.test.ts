import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_CAPABILITIES } from '../../runtime/oci-spec.js';
import { capabilitiesFromMask, containerCapabilities, normalizeCapabilities } from './capabilities.js';

// this machine's root: everything up to CAP_CHECKPOINT_RESTORE but CAP_SYS_RESOURCE
const HELD = capabilitiesFromMask('000001fffeffffff');

describe('capabilities', () => {
  it('reads a /proc status mask', () => {
    assert.equal(HELD.length, 40);
    assert.ok(!HELD.includes('CAP_SYS_RESOURCE'));
    assert.deepEqual(capabilitiesFromMask('00000000a80425fb'), [...DEFAULT_CAPABILITIES].sort((a, b) => HELD.indexOf(a) - HELD.indexOf(b)));
  });

  it("keeps Docker's defaults without CapAdd or CapDrop", () => {
    assert.deepEqual(containerCapabilities({ all: HELD }), DEFAULT_CAPABILITIES);
  });

  it('normalizes case and the CAP_ prefix, and refuses unknown names', () => {
    assert.deepEqual(normalizeCapabilities(['net_admin', 'CAP_sys_admin', 'all', 'Chown']), ['CAP_NET_ADMIN', 'CAP_SYS_ADMIN', 'ALL', 'CAP_CHOWN']);
    assert.throws(() => normalizeCapabilities(['bogus']), { kind: 'invalidParameter', message: 'unknown capability: "CAP_BOGUS"' });
  });

  it('drops, then adds', () => {
    const caps = containerCapabilities({ capAdd: ['NET_ADMIN', 'chown'], capDrop: ['CHOWN', 'mknod'], all: HELD });
    assert.deepEqual(caps, [...DEFAULT_CAPABILITIES.filter((c) => c !== 'CAP_CHOWN' && c !== 'CAP_MKNOD'), 'CAP_NET_ADMIN', 'CAP_CHOWN']);
  });

  it('ALL in CapAdd is what the daemon holds, less CapDrop; ALL in CapDrop leaves CapAdd', () => {
    const all = containerCapabilities({ capAdd: ['ALL'], capDrop: ['SYS_ADMIN'], all: HELD });
    assert.deepEqual(all, HELD.filter((c) => c !== 'CAP_SYS_ADMIN'));
    assert.deepEqual(containerCapabilities({ capAdd: ['kill'], capDrop: ['all'], all: HELD }), ['CAP_KILL']);
  });

  it('privileged gets every capability the daemon holds, not the kernel list', () => {
    assert.deepEqual(containerCapabilities({ privileged: true, capDrop: ['ALL'], all: HELD }), HELD);
  });

  it('takes Capabilities (API 1.40) as the whole set, exact names only', () => {
    assert.deepEqual(containerCapabilities({ capabilities: ['CAP_KILL'], capAdd: ['NET_ADMIN'], all: HELD }), ['CAP_KILL']);
    assert.throws(() => containerCapabilities({ capabilities: ['kill'], all: HELD }), /unknown capability: "kill"/);
  });
});
