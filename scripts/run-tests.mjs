// npm test after set-up: the linter, then every *.test.js of the build under node's test runner.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return testFiles(p);
    return e.name.endsWith('.test.js') ? [p] : [];
  });
}

const only = process.argv.slice(2);
const lint = spawnSync(process.execPath, ['node_modules/eslint/bin/eslint.js', '.'], { cwd: root, stdio: 'inherit' });
if (lint.status !== 0) process.exit(lint.status ?? 1);

const files = testFiles(path.join(root, 'dist')).filter((f) => only.length === 0 || only.some((o) => f.includes(o)));
const r = spawnSync(process.execPath, ['--test', '--test-timeout=300000', ...files], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
