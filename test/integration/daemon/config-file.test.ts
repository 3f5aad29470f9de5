import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { Berthd, tempDir } from '../../helpers/berthd.js';
import { request } from '../../helpers/http.js';

it('refuses to start on an unknown key, naming it as dockerd does', async () => {
  const d = Berthd.spawn({ config: { debug: true, 'tls-verify': true } });
  assert.equal((await d.exited).code, 1);
  assert.match(d.log, /unable to configure the daemon with file .*daemon\.json: the following directives don't match any configuration option: tls-verify/);
});

it('refuses to start when a key is both a flag and in the file', async () => {
  const d = Berthd.spawn({ config: { labels: ['a=b'] }, args: ['--label', 'c=d'] });
  assert.equal((await d.exited).code, 1);
  assert.match(d.log, /the following directives are specified both as a flag and in the configuration file: labels: \(from flag: \[c=d\], from file: \[a=b\]\)/);
});

it('refuses to start when --config-file names a missing file', async () => {
  const d = Berthd.spawn({ args: ['--config-file', path.join(tempDir(), 'missing.json')] });
  assert.equal((await d.exited).code, 1);
  assert.match(d.log, /unable to configure the daemon with file .*missing\.json/);
});

it('refuses to start on a node port range it cannot use, from a flag or the file', async () => {
  const fromFlag = Berthd.spawn({ args: ['--dynamic-node-port-range', '30000-70000'] });
  assert.equal((await fromFlag.exited).code, 1);
  assert.match(fromFlag.log, /berthd: invalid dynamic-node-port-range "30000-70000": want START-END, with 1 <= START <= END <= 65535/);
  const fromFile = Berthd.spawn({ config: { 'node-port-range': '20000-29999' } });
  assert.equal((await fromFile.exited).code, 1);
  assert.match(fromFile.log, /berthd: dynamic-node-port-range 30000-32767 must lie inside node-port-range 20000-29999/);
});

it('starts with node port ranges set in the file and by flag', async () => {
  const d = await Berthd.start({ config: { 'node-port-range': '20000-40000' }, args: ['--dynamic-node-port-range', '20000-20999'] });
  await d.stop();
});

it('takes hosts and labels from the file', async () => {
  const socket = path.join(tempDir(), 'from-file.sock');
  const d = Berthd.spawn({ noDefaultHost: true, config: { hosts: [`unix://${socket}`], labels: ['from=file'] } });
  try {
    let info: { Labels: string[] } | undefined;
    for (let i = 0; i < 300 && !info; i++) {
      try {
        info = (await request({ socketPath: socket }, 'GET', '/info')).json() as { Labels: string[] };
      } catch {
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    assert.deepEqual(info?.Labels, ['from=file']);
  } finally {
    await d.stop();
  }
});

it('SIGHUP reloads debug and labels; a broken file on reload changes nothing', async () => {
  const d = await Berthd.start({ config: { labels: ['v=1'] } });
  try {
    const info = async () => (await d.request('GET', '/info')).json() as { Labels: string[]; Debug: boolean };
    const before = await info();
    assert.deepEqual([before.Labels, before.Debug], [['v=1'], false]);

    writeFileSync(d.configFile, JSON.stringify({ labels: ['v=2'], debug: true }));
    process.kill(d.proc.pid as number, 'SIGHUP');
    await waitFor(async () => (await info()).Labels[0] === 'v=2');
    assert.equal((await info()).Debug, true);

    writeFileSync(d.configFile, '{"labels": ["v=3"], "bogus": 1}');
    process.kill(d.proc.pid as number, 'SIGHUP');
    await waitFor(() => /configuration not reloaded/.test(d.log));
    assert.deepEqual((await info()).Labels, ['v=2']);
  } finally {
    // the broken file's error is the point of the test
    await d.stop('SIGTERM', { expectErrors: true });
  }
});

async function waitFor(cond: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.fail('condition not met in time');
}
