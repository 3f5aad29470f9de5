// berth as a library: what package.json `exports` offers, used as another program would, by
// package name (Node's self-reference), and type-checked by tsc as a consumer's code.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';
import { tempDir } from '../../helpers/berthd.js';

const root = fileURLToPath(new URL('../../../..', import.meta.url));
// a variable, so that tsc does not resolve the package while it is building it
const PACKAGE = 'berth';

it('exports the EndpointRecord codec, its JSON mapping and the port rules by package name', async () => {
  const berth = (await import(PACKAGE)) as typeof import('../../../src/library.js');
  for (const name of ['encodeEndpointRecord', 'decodeEndpointRecord', 'endpointRecordToJson', 'endpointRecordFromJson', 'checkPortConfigs', 'PublishedPorts']) {
    assert.equal(typeof (berth as Record<string, unknown>)[name], 'function', name);
  }
  const bytes = berth.encodeEndpointRecord({ name: 'web.1', ingressPorts: [{ protocol: berth.Protocol.UDP, targetPort: 53 }] });
  assert.equal(Buffer.from(bytes).toString('hex'), '0a057765622e31' + '3204' + '1001' + '1835');
  assert.deepEqual(berth.endpointRecordToJson(berth.decodeEndpointRecord(bytes)), { name: 'web.1', ingressPorts: [{ protocol: 'UDP', targetPort: 53 }] });
});

it('is typed for a TypeScript consumer', () => {
  const dir = tempDir();
  mkdirSync(path.join(dir, 'node_modules'));
  symlinkSync(root, path.join(dir, 'node_modules', 'berth'));
  symlinkSync(path.join(root, 'node_modules', '@types'), path.join(dir, 'node_modules', '@types'));
  writeFileSync(path.join(dir, 'package.json'), '{"type": "module"}');
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, types: [] } }),
  );
  writeFileSync(
    path.join(dir, 'consumer.ts'),
    `import { decodeEndpointRecord, encodeEndpointRecord, endpointRecordToJson, Protocol, type EndpointRecord, type EndpointRecordJson } from 'berth';
const bytes: Uint8Array = encodeEndpointRecord({ name: 'a', ingressPorts: [{ protocol: Protocol.SCTP, targetPort: 9 }] });
const record: EndpointRecord = decodeEndpointRecord(bytes);
const json: EndpointRecordJson = endpointRecordToJson(record);
const port: number = record.ingressPorts[0].targetPort;
// @ts-expect-error: the protocol's JSON form is its name
const wrong: EndpointRecordJson = { ingressPorts: [{ protocol: 2 }] };
export { json, port, wrong };
`,
  );
  const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
});
