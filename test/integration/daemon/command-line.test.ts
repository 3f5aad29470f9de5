import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { BERTHD, Berthd } from '../../helpers/berthd.js';

const pkg = JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as { version: string };

function berthd(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(BERTHD, args, { encoding: 'utf8', timeout: 10000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

it('--version prints the version', () => {
  const r = berthd(['--version']);
  assert.equal(r.status, 0);
  assert.equal(r.stdout.trim(), `berth version ${pkg.version}`);
});

it('--help lists the flags in dockerd spelling', () => {
  const r = berthd(['--help']);
  assert.equal(r.status, 0);
  for (const flag of ['-H, --host', '--data-root', '--exec-root', '--pidfile', '--config-file', '--log-level', '--tlsverify', '--tlscacert', '--tlscert', '--tlskey']) {
    assert.ok(r.stdout.includes(flag), `--help lacks ${flag}`);
  }
});

it('an unknown flag or a bad value is an error', () => {
  assert.notEqual(berthd(['--bogus']).status, 0);
  assert.match(berthd(['--log-level', 'loud']).stderr, /loud/);
  assert.match(berthd(['--label', 'novalue']).stderr, /bad attribute format: novalue/);
});

it('logs one JSON object a line, and never the credentials a request carries', async () => {
  const d = await Berthd.start({ args: ['--debug'] });
  const secret = Buffer.from(JSON.stringify({ username: 'u', password: 'hunter2-secret' })).toString('base64url');
  await d.request('GET', '/info', { headers: { 'X-Registry-Auth': secret, Authorization: 'Bearer hunter2-token' } });
  await d.stop();
  const lines = d.log.trim().split('\n');
  assert.ok(lines.length > 2);
  for (const line of lines) {
    const entry = JSON.parse(line) as { level: string; time: string; msg: string };
    assert.ok(['debug', 'info', 'warn', 'error', 'fatal'].includes(entry.level), line);
    assert.ok(!Number.isNaN(Date.parse(entry.time)), line);
  }
  assert.ok(d.log.includes('Calling GET /info'), 'debug log of the request is missing');
  assert.ok(!d.log.includes(secret) && !d.log.includes('hunter2'), 'a credential reached the log');
});
