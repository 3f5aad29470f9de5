import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { checkConflicts, ConfigFileError, readConfigFile } from './config-file.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'berth-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function file(content: string): string {
  const f = path.join(dir, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(f, content);
  return f;
}

describe('readConfigFile', () => {
  it('reads dockerd keys into settings', () => {
    const f = file(JSON.stringify({ debug: true, labels: ['a=b'], hosts: ['unix:///x.sock'], 'data-root': '/d', 'log-level': 'warn', tlsverify: true }));
    assert.deepEqual(readConfigFile(f, true), { debug: true, labels: ['a=b'], hosts: ['unix:///x.sock'], dataRoot: '/d', logLevel: 'warn', tlsVerify: true });
  });
  it('treats a missing file at the default path as empty, and a named one as an error', () => {
    const missing = path.join(dir, 'missing.json');
    assert.deepEqual(readConfigFile(missing, false), {});
    assert.throws(() => readConfigFile(missing, true), ConfigFileError);
  });
  it('names unknown keys as dockerd does', () => {
    const f = file('{"debug": true, "bogus": 1, "tls-verify": true}');
    assert.throws(
      () => readConfigFile(f, true),
      new ConfigFileError(f, "the following directives don't match any configuration option: bogus, tls-verify"),
    );
  });
  it('refuses a value of the wrong type', () => {
    assert.throws(() => readConfigFile(file('{"debug": "yes"}'), true), /invalid value for debug: expected a boolean/);
    assert.throws(() => readConfigFile(file('{"hosts": "unix:///x"}'), true), /invalid value for hosts: expected a list of strings/);
    assert.throws(() => readConfigFile(file('{"log-level": "loud"}'), true), /invalid log-level "loud"/);
  });
  it('refuses malformed JSON and a non-object', () => {
    assert.throws(() => readConfigFile(file('{"debug": '), true), ConfigFileError);
    assert.throws(() => readConfigFile(file('[1]'), true), /must hold a JSON object/);
  });
});

describe('checkConflicts', () => {
  it('fails when a key is given both as a flag and in the file, whatever the values', () => {
    assert.throws(
      () => checkConflicts('/f.json', { hosts: ['tcp://127.0.0.1:2345'], debug: true }, { hosts: ['unix:///var/run/b.sock'], debug: true }),
      new ConfigFileError(
        '/f.json',
        'the following directives are specified both as a flag and in the configuration file: hosts: (from flag: [unix:///var/run/b.sock], from file: [tcp://127.0.0.1:2345]), debug: (from flag: true, from file: true)',
      ),
    );
  });
  it('passes when flags and file set different keys', () => {
    checkConflicts('/f.json', { debug: true }, { hosts: ['unix:///x'] });
  });
});
