// Holds the systemd units in contrib/init/systemd/ to what the README promises of them: socket
// activation on the default socket, KillMode=process so that containers outlive a stop, Delegate=yes;
// systemd-analyze checks their syntax where it is installed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';
import { DEFAULT_SOCKET } from '../../src/config/daemon-config.js';

// The compiled test runs from dist/test/docs/.
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const unitDir = path.join(repoRoot, 'contrib/init/systemd');
const service = readFileSync(path.join(unitDir, 'berth.service'), 'utf8');
const socket = readFileSync(path.join(unitDir, 'berth.socket'), 'utf8');

function settings(unit: string): Map<string, string> {
  return new Map(unit.split('\n').filter((l) => /^[A-Za-z]+=/.test(l)).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

it('the service runs berthd on the socket systemd passes, stops only berthd and leaves its cgroups to it', () => {
  const s = settings(service);
  assert.match(s.get('ExecStart') ?? '', /\/berthd -H fd:\/\/$/);
  assert.equal(s.get('KillMode'), 'process');
  assert.equal(s.get('Delegate'), 'yes');
  assert.equal(s.get('Requires'), 'berth.socket');
  assert.equal(s.get('ExecReload'), '/bin/kill -s HUP $MAINPID');
});

it('the socket is the default socket, mode 0660, group docker', () => {
  const s = settings(socket);
  assert.equal(s.get('ListenStream'), DEFAULT_SOCKET);
  assert.equal(s.get('SocketMode'), '0660');
  assert.equal(s.get('SocketGroup'), 'docker');
});

const analyze = spawnSync('systemd-analyze', ['--version']).status === 0;

it('systemd-analyze verify finds nothing to say', { skip: !analyze && 'systemd-analyze is not installed' }, () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'berth-units-'));
  try {
    // ExecStart's binary must exist for verify: the unit is checked with it pointing at bin/berthd
    const berthd = path.join(dir, 'berthd');
    symlinkSync(path.join(repoRoot, 'bin/berthd'), berthd);
    writeFileSync(path.join(dir, 'berth.service'), service.replaceAll('/usr/local/bin/berthd', berthd));
    copyFileSync(path.join(unitDir, 'berth.socket'), path.join(dir, 'berth.socket'));
    const r = spawnSync('systemd-analyze', ['verify', path.join(dir, 'berth.socket'), path.join(dir, 'berth.service')], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr.trim(), '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
