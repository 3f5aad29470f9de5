// The build: protoc-gen-es generates TypeScript for the protobuf schemas in proto/ into
// src/generated/ (never edited by hand, never committed); tsc type-checks and compiles everything
// (src, tests, bench) to dist/, with declarations for the library's users (package.json exports);
// esbuild then bundles the daemon into one file, because loading one module starts berthd ~50 ms
// faster than resolving some eighty; last, the build is stamped with its commit and time for
// GET /version.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (p) => fileURLToPath(new URL(`../node_modules/${p}`, import.meta.url));

function run(command, args) {
  const r = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

// Regenerated from scratch, so a schema removed from proto/ leaves no stale module behind.
rmSync(`${root}/src/generated`, { recursive: true, force: true });
mkdirSync(`${root}/src/generated`);
run('protoc', [
  `--plugin=protoc-gen-es=${bin('.bin/protoc-gen-es')}`,
  '--es_out=src/generated',
  // NodeNext resolution wants the .js extension; json_types gives each message its JSON shape as a type
  '--es_opt=target=ts,import_extension=js,json_types=true',
  '--proto_path=proto',
  ...protoFiles('proto'),
]);
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
  // loads its .proto files from beside its own code at run time
  '--external:etcd3',
  // the CommonJS dependencies in an ES module bundle need a require
  "--banner:js=import { createRequire as berthCreateRequire } from 'node:module'; const require = berthCreateRequire(import.meta.url);",
]);
run(process.execPath, ['scripts/write-build-info.mjs']);

function protoFiles(dir) {
  return readdirSync(`${root}/${dir}`, { recursive: true })
    .filter((f) => f.endsWith('.proto'))
    .map((f) => `${dir}/${f}`);
}
