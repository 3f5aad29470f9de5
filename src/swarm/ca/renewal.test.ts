import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { renewalDue } from './renewal.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'berth-renewal-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('renewalDue', () => {
  it('says a certificate is due once half its life has passed', () => {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=n', '-keyout', path.join(dir, 'k.pem'), '-out', path.join(dir, 'c.pem')], { stdio: 'ignore' });
    const pem = readFileSync(path.join(dir, 'c.pem'), 'utf8');
    const hour = 3600_000;
    assert.equal(renewalDue(pem, Date.now()), false);
    assert.equal(renewalDue(pem, Date.now() + 23 * hour), false);
    assert.equal(renewalDue(pem, Date.now() + 25 * hour), true);
  });
});
