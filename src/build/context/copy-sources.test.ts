import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { tarOf, type LayerEntry } from '../../../test/helpers/image-archives.js';
import { openBuildContext, type BuildContext } from './build-context.js';
import { CopySource } from './copy-source.js';
import { CopySources, type ResolveOptions } from './copy-sources.js';

const asRoot = process.getuid?.() === 0;
let base: string;
let staging: string;
before(() => {
  base = mkdtempSync(path.join(os.tmpdir(), 'copy-sources-'));
  staging = path.join(base, 'staging');
  mkdirSync(staging);
});
after(() => rmSync(base, { recursive: true, force: true }));

// The context the reference engine (dockerd 20.10) hashed: COPY d gave the dir: key, COPY top d/f the multi: key.
const REFERENCE_CONTEXT: LayerEntry[] = [
  { name: 'Dockerfile', content: 'FROM busybox\n' },
  // as Python's tarfile names it (tar-stream would write "d", and the name is hashed)
  { name: 'd/', type: 'directory', mode: 0o750, uid: 1, gid: 2 },
  { name: 'd/f', content: 'hello\n', uid: 3, gid: 4 },
  { name: 'd/ln', type: 'symlink', linkname: '../top', mode: 0o777 },
  { name: 'd/dangle', type: 'symlink', linkname: 'nowhere', mode: 0o777 },
  { name: 'd/imp/x', content: 'x' },
  { name: 'top', content: 'top\n', mode: 0o600 },
];

async function context(entries: LayerEntry[]): Promise<BuildContext> {
  return openBuildContext({ stagingDir: staging, body: Readable.from([await tarOf(entries)]) });
}

function resolve(source: CopySource | undefined, sources: string[], dest: string, more: Partial<ResolveOptions> = {}): Promise<CopySources> {
  return CopySources.resolve({ cmdName: 'COPY', sources, dest, source, stagingDir: staging, ...more });
}

async function failure(promise: Promise<unknown>): Promise<string> {
  return ((await promise.then(
    () => assert.fail('it worked'),
    (e: unknown) => e,
  )) as Error).message;
}

describe('CopySources.resolve', () => {
  let ctx: BuildContext;
  before(async () => {
    ctx = await context(REFERENCE_CONTEXT);
  });
  after(() => ctx.close());

  test("the cache keys are dockerd's, checked on the reference engine", async () => {
    let sources = await resolve(ctx.source, ['d'], '/d1');
    assert.equal(sources.cacheKey, 'dir:64a22486fb5710b3979040f4d657a80628e18f152cd000801195a2046657dd38');
    sources = await resolve(ctx.source, ['top', '/d/f'], '/m/');
    assert.equal(sources.cacheKey, 'multi:7688243d4e2d7be20ac6e4e4c9087a261211758dc4005de4d2b0c508c7230fa8');
    assert.deepEqual(
      sources.infos.map((i) => [i.path, i.hash]),
      [
        ['top', 'file:bca1d5deae6d4ed7e990250a08b47598b0668d277de7d534fbac8ade2f4f18d2'],
        ['d/f', 'file:802d43a748ac25e4cdc1c2c9aa42172e17aa1f7010d8a2fc1644f726d6b13b89'],
      ],
    );
    // a link is hashed as its target
    assert.equal((await resolve(ctx.source, ['d/ln'], '/x')).cacheKey, 'file:bca1d5deae6d4ed7e990250a08b47598b0668d277de7d534fbac8ade2f4f18d2');
  });

  test('patterns match every path of the tree with filepath.Match; nothing matched is no error unless nothing is left', async () => {
    const sources = await resolve(ctx.source, ['d/[fi]*', 'nothere*', '[t]op', '*/*/x'], '/x/');
    assert.deepEqual(
      sources.infos.map((i) => i.path),
      ['d/f', 'd/imp', 'top', 'd/imp/x'],
    );
    // as in dockerd, a pattern matching a dangling link fails as a missing file
    assert.equal(await failure(resolve(ctx.source, ['d/d*'], '/x')), 'COPY failed: file not found in build context or excluded by .dockerignore: stat d/dangle: file does not exist');
    assert.equal(await failure(resolve(ctx.source, ['nothere*'], '/x')), 'COPY failed: no source files were specified');
  });

  test("dockerd's errors", async () => {
    assert.equal(await failure(resolve(ctx.source, ['nothere'], '/x')), 'COPY failed: file not found in build context or excluded by .dockerignore: stat nothere: file does not exist');
    assert.equal(await failure(resolve(ctx.source, ['nothere'], '/x', { cmdName: 'ADD' })), 'ADD failed: file not found in build context or excluded by .dockerignore: stat nothere: file does not exist');
    assert.equal(await failure(resolve(ctx.source, ['d/dangle'], '/x')), 'COPY failed: file not found in build context or excluded by .dockerignore: stat d/dangle: file does not exist');
    assert.equal(await failure(resolve(ctx.source, ['/nothere'], '/x', { fromImage: true })), 'COPY failed: stat nothere: file does not exist');
    assert.equal(await failure(resolve(ctx.source, ['../x'], '/x')), 'COPY failed: forbidden path outside the build context: ../x ()');
    assert.equal(await failure(resolve(ctx.source, ['d/../../x'], '/x')), 'COPY failed: forbidden path outside the build context: d/../../x ()');
    assert.equal(await failure(resolve(ctx.source, ['top/x'], '/x')), 'COPY failed: forbidden path outside the build context: top/x ()');
    assert.equal(await failure(resolve(ctx.source, ['top', 'd'], '/x')), 'When using COPY with more than one source file, the destination must be a directory and end with a /');
    assert.equal(await failure(resolve(ctx.source, ['http://127.0.0.1:1/x'], '/x')), "COPY failed: source can't be a URL for COPY");
    assert.equal(await failure(resolve(undefined, ['a'], '/x')), 'COPY failed: missing build context');
  });
});

test('an image root is hashed file by file as 20.10.27 does (no owner names)', { skip: !asRoot && 'needs root to own files as others' }, async () => {
  const image = mkdtempSync(path.join(base, 'image-'));
  mkdirSync(path.join(image, 'src/d'), { recursive: true });
  writeFileSync(path.join(image, 'src/d/f'), 'hi\n');
  for (const p of ['src', 'src/d', 'src/d/f']) chownSync(path.join(image, p), 5, 6);
  chmodSync(path.join(image, 'src/d/f'), 0o644);
  symlinkSync('d/f', path.join(image, 'src/lnf'));
  const sources = await resolve(new CopySource(image), ['/src/lnf'], '/y', { fromImage: true });
  // the reference engine (20.10.24, which put the host's names "games" and "disk" in) gave
  // file:02827c5b...; with the names left out, as 20.10.27 does:
  assert.equal(sources.cacheKey, 'file:d7f74e40472e90cd9db96e24394cba081447272d35b5e36bc7ea94ba2ff55aaa');
});
