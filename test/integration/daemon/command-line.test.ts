import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { BERTHD, Berthd, tempDir } from '../../helpers/berthd.js';

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

describe('--validate', () => {
  it('says configuration OK on stderr and exits 0, starting nothing', () => {
    const dir = tempDir();
    const file = path.join(dir, 'daemon.json');
    writeFileSync(file, JSON.stringify({ debug: true, 'metrics-addr': '127.0.0.1:9323', 'log-format': 'json' }));
    const r = berthd(['--validate', '--config-file', file, '--data-root', path.join(dir, 'root'), '--pidfile', path.join(dir, 'pid')]);
    assert.deepEqual(r, { status: 0, stdout: '', stderr: 'configuration OK\n' });
    assert.deepEqual(readdirSync(dir), ['daemon.json']);
  });

  it('prints what is wrong and exits 1', () => {
    const file = path.join(tempDir(), 'daemon.json');
    writeFileSync(file, JSON.stringify({ bogus: 1 }));
    const r = berthd(['--validate', '--config-file', file]);
    assert.equal(r.status, 1);
    assert.equal(r.stderr, `berthd: unable to configure the daemon with file ${file}: the following directives don't match any configuration option: bogus\n`);
    writeFileSync(file, JSON.stringify({ 'log-format': 'xml' }));
    assert.match(berthd(['--validate', '--config-file', file]).stderr, /invalid log format "xml": expected one of text, json/);
    writeFileSync(file, JSON.stringify({ 'metrics-addr': 'nowhere' }));
    assert.match(berthd(['--validate', '--config-file', file]).stderr, /invalid metrics-addr "nowhere": expected host:port/);
  });
});

describe('--log-format', () => {
  it('text writes logrus lines, as dockerd\'s, still without credentials', async () => {
    const d = await Berthd.start({ args: ['--log-format', 'text', '--debug'], netns: 'own' });
    const secret = Buffer.from(JSON.stringify({ username: 'u', password: 'hunter2-secret' })).toString('base64url');
    await d.request('GET', '/info', { headers: { 'X-Registry-Auth': secret, Authorization: 'Bearer hunter2-token' } });
    await d.stop();
    const lines = d.log.trim().split('\n');
    for (const line of lines) assert.match(line, /^time="[^"]+" level=(debug|info|warn|error|fatal) msg="/, line);
    assert.ok(lines.some((l) => /level=info msg="API listen on /.test(l)));
    assert.ok(!d.log.includes(secret) && !d.log.includes('hunter2'), 'a credential reached the log');
  });

  it('json writes one JSON object a line; a format berthd does not know is refused', async () => {
    const d = await Berthd.start({ config: { 'log-format': 'json' }, netns: 'own' });
    await d.stop();
    for (const line of d.log.trim().split('\n')) assert.ok(['info', 'debug', 'warn'].includes((JSON.parse(line) as { level: string }).level), line);
    assert.match(berthd(['--log-format', 'xml']).stderr, /xml/);
  });
});
