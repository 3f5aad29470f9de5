// The build: tsc type-checks and compiles everything (src, tests, bench) to dist/; esbuild then
// bundles the daemon into one file, because loading one module starts berthd ~50 ms faster than
// resolving some eighty; last, the build is stamped with its commit and time for GET /version.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (p) => fileURLToPath(new URL(`../node_modules/${p}`, import.meta.url));

function run(command, args) {
  const r = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

run(process.execPath, [bin('typescript/bin/tsc'), '-p', 'tsconfig.json']);
// esbuild's bin is its native executable
run(bin('esbuild/bin/esbuild'), [
  'src/cli/main.ts',
  '--bundle',
  '--platform=node',
  '--format=esm',
  '--target=node20',
  '--sourcemap',
  '--log-level=warning',
  // beside dist/src/version.js, so the relative paths to package.json and the build stamp hold
  '--outfile=dist/src/berthd.mjs',
  // only loaded for a terminal
  '--external:pino-pretty',
  // the CommonJS dependencies in an ES module bundle need a require
  "--banner:js=import { createRequire as berthCreateRequire } from 'node:module'; const require = berthCreateRequire(import.meta.url);",
]);
run(process.execPath, ['scripts/write-build-info.mjs']);
