// Holds docs/COMPATIBILITY.md to the 1.41 spec and to berth's route table, so the document can
// neither miss an operation nor claim one the router does not serve.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { allRoutes } from '../../src/api/routes/all-routes.js';
import type { ContainerBackend } from '../../src/api/routes/container/backend.js';
import type { ExecBackend } from '../../src/api/routes/exec/backend.js';
import type { ImageBackend } from '../../src/api/routes/image/backend.js';
import type { ImageCommitBackend } from '../../src/api/routes/image/commit-backend.js';
import type { SwarmBackend } from '../../src/api/routes/swarm/backend.js';
import type { BuildBackend } from '../../src/api/routes/build/backend.js';
import type { DistributionBackend } from '../../src/api/routes/distribution/backend.js';
import type { VolumeBackend } from '../../src/api/routes/volume/backend.js';
import type { NetworkBackend } from '../../src/api/routes/network/backend.js';
import type { NetworkConnectBackend } from '../../src/api/routes/network/connect-backend.js';
import type { SystemBackend } from '../../src/api/routes/system/backend.js';
import type { DebugBackend } from '../../src/api/routes/debug/backend.js';

// The compiled test runs from dist/test/docs/. The spec's operations come from the repository's own
// list (scripts/spec-operations.mjs makes it from the spec; spec-operations.test.ts checks it).
const repoRoot = new URL('../../../', import.meta.url);
const docText = readFileSync(new URL('docs/COMPATIBILITY.md', repoRoot), 'utf8');
const spec = JSON.parse(readFileSync(new URL('test/fixtures/api-v1.41-operations.json', repoRoot), 'utf8')) as SpecOperations;

const STATUSES = ['works', 'partial', 'not yet'];

interface Operation {
  operationId: string;
  tag: string;
  method: string;
  path: string;
}

interface Row extends Operation {
  status: string;
}

interface SpecOperations {
  /** the spec's tag list, in its order */
  tags: string[];
  operations: Operation[];
}

/** The tables' rows, each under the `## Tag` heading above it, and the headings in order. */
function parseDoc(text: string): { headings: string[]; rows: Row[] } {
  const headings: string[] = [];
  const rows: Row[] = [];
  for (const line of text.split('\n')) {
    const heading = /^## (.+)$/.exec(line);
    if (heading) headings.push(heading[1]);
    if (!line.startsWith('|') || line.startsWith('|---') || line.startsWith('| Method ')) continue;
    const [method, path, operationId, status] = line.split('|').slice(1, -1).map((cell) => cell.trim());
    rows.push({ operationId, tag: headings.at(-1) ?? '', method, path, status });
  }
  return { headings, rows };
}

const key = (o: { operationId: string; method: string; path: string }) => `${o.operationId} ${o.method} ${o.path}`;
const byId = (a: Operation, b: Operation) => a.operationId.localeCompare(b.operationId);

const expected = spec.operations;
const doc = parseDoc(docText);

describe('docs/COMPATIBILITY.md', () => {
  it('lists every operation of the 1.41 spec once, under its tag, with its method and path', () => {
    assert.equal(expected.length, 106);
    const listed = doc.rows.map(({ operationId, tag, method, path }) => ({ operationId, tag, method, path }));
    assert.deepEqual(listed.sort(byId), [...expected].sort(byId));
  });

  it("has one table per tag, in the spec's tag order", () => {
    // Distribution and Session are used by operations but missing from the spec's tag list: they go last.
    const tags = [...new Set([...spec.tags, ...expected.map((o) => o.tag)])];
    assert.deepEqual(doc.headings, tags);
  });

  it('gives each operation one of the three statuses', () => {
    for (const row of doc.rows) assert.ok(STATUSES.includes(row.status), `${row.operationId}: ${row.status}`);
  });

  it('marks as works or partial exactly the operations the router serves', () => {
    // Building the route table must not touch the backend; these throw if it ever does.
    const unused = (): never => {
      throw new Error('the route table was built by calling the backend');
    };
    const system: SystemBackend = { version: unused, info: unused, events: unused, dataUsage: unused };
    const image: ImageBackend = {
      list: unused,
      get: unused,
      history: unused,
      tag: unused,
      remove: unused,
      prune: unused,
      load: unused,
      importImage: unused,
      save: unused,
      usage: unused,
      layerDirs: unused,
      pull: unused,
      push: unused,
    };
    // every container operation, by the backend's own keys
    const container = new Proxy({} as ContainerBackend, { get: () => unused });
    const exec = new Proxy({} as ExecBackend, { get: () => unused });
    const commit = new Proxy({} as ImageCommitBackend, { get: () => unused });
    const network: NetworkBackend = { list: unused, inspect: unused, create: unused, remove: unused, prune: unused };
    const networkConnect: NetworkConnectBackend = { connect: unused, disconnect: unused };
    const volume: VolumeBackend = { list: unused, inspect: unused, create: unused, remove: unused, prune: unused };
    const distribution: DistributionBackend = { login: unused, inspect: unused, search: unused };
    const build: BuildBackend = { build: unused, prune: unused };
    const swarm = new Proxy({} as SwarmBackend, { get: () => unused });
    const debug: DebugBackend = { networkTable: unused };
    // berth's own /debug routes are outside the spec, as dockerd's are
    const served = allRoutes({ system, image, commit, container, exec, network, networkConnect, volume, distribution, build, swarm, debug })
      .filter((r) => !r.path.startsWith('/debug/'))
      .map(key)
      .sort();
    const claimed = doc.rows.filter((r) => r.status !== 'not yet').map(key).sort();
    assert.deepEqual(claimed, served);
  });

  it('states the counts of the table in its summary', () => {
    const summary = /^Summary: (\d+) operations: (\d+) works, (\d+) partial, (\d+) not yet\.$/m.exec(docText);
    assert.ok(summary, 'summary line not found');
    const count = (status: string) => doc.rows.filter((r) => r.status === status).length;
    assert.deepEqual(summary.slice(1).map(Number), [doc.rows.length, ...STATUSES.map(count)]);
  });
});
