import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ALL_CAPABILITIES } from './capabilities.js';
import { execProcess } from './exec-process.js';
import { DEFAULT_CAPABILITIES, ociSpec, type ContainerSpecInput } from './oci-spec.js';

const PATH = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

function spec(extra: Partial<ContainerSpecInput> = {}) {
  const s = ociSpec({
    args: ['sleep', '1000'],
    env: [PATH, 'HOSTNAME=abc', 'FOO=bar'],
    cwd: '/srv',
    user: { uid: 1000, gid: 1000, additionalGids: [123] },
    rootfsPath: '/r',
    cgroupsPath: '/berth/abc',
    noNewPrivileges: true,
    rlimits: [{ type: 'RLIMIT_NOFILE', soft: 1024, hard: 2048 }],
    ...extra,
  });
  s.process.apparmorProfile = 'docker-default';
  return s;
}

describe('execProcess', () => {
  it("takes the container's env, user, cwd, capabilities, rlimits, no-new-privileges and AppArmor profile", () => {
    const p = execProcess(spec(), { args: ['id'] });
    assert.deepEqual(p, {
      terminal: false,
      user: { uid: 1000, gid: 1000, additionalGids: [123] },
      args: ['id'],
      env: [PATH, 'HOSTNAME=abc', 'FOO=bar'],
      cwd: '/srv',
      capabilities: { bounding: [...DEFAULT_CAPABILITIES], effective: [...DEFAULT_CAPABILITIES], inheritable: [], permitted: [...DEFAULT_CAPABILITIES] },
      noNewPrivileges: true,
      rlimits: [{ type: 'RLIMIT_NOFILE', soft: 1024, hard: 2048 }],
      apparmorProfile: 'docker-default',
    });
  });

  it('takes what the request gives instead, and merges its env as dockerd does', () => {
    const s = spec();
    const p = execProcess(s, { args: ['sh'], env: ['FOO=baz', 'NEW=1', 'HOSTNAME'], user: { uid: 0, gid: 0 }, cwd: '/tmp' });
    assert.deepEqual(p.env, [PATH, 'FOO=baz', 'NEW=1']);
    assert.deepEqual(p.user, { uid: 0, gid: 0 });
    assert.equal(p.cwd, '/tmp');
    // the spec is left as it was
    assert.deepEqual(s.process.env, [PATH, 'HOSTNAME=abc', 'FOO=bar']);
    p.capabilities.bounding.push('CAP_SYS_ADMIN');
    assert.deepEqual(s.process.capabilities.bounding, [...DEFAULT_CAPABILITIES]);
  });

  it('sets TERM=xterm for the exec’s terminal, not the container’s', () => {
    assert.deepEqual(execProcess(spec(), { args: ['sh'], tty: true }).env, [PATH, 'HOSTNAME=abc', 'TERM=xterm', 'FOO=bar']);
    assert.equal(execProcess(spec(), { args: ['sh'], tty: true }).terminal, true);
    const ttyContainer = spec({ terminal: true, env: [PATH, 'HOSTNAME=abc', 'TERM=xterm', 'FOO=bar'] });
    assert.deepEqual(execProcess(ttyContainer, { args: ['sh'] }).env, [PATH, 'HOSTNAME=abc', 'FOO=bar']);
    assert.deepEqual(execProcess(ttyContainer, { args: ['sh'], tty: true }).env, [PATH, 'HOSTNAME=abc', 'TERM=xterm', 'FOO=bar']);
    // a TERM of the container's own Env stays
    assert.deepEqual(execProcess(spec({ env: [PATH, 'TERM=vt100'] }), { args: ['sh'], tty: true }).env, [PATH, 'TERM=vt100']);
  });

  it('gives a privileged exec the capabilities it is given in all four sets', () => {
    const p = execProcess(spec(), { args: ['id'], capabilities: ALL_CAPABILITIES });
    assert.equal(ALL_CAPABILITIES.length, 41);
    for (const set of ['bounding', 'effective', 'inheritable', 'permitted'] as const) assert.deepEqual(p.capabilities[set], [...ALL_CAPABILITIES]);
  });
});
