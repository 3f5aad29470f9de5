// An interrupted load leaves no half image and no orphaned layer: the client going away, and the
// daemon killed with SIGKILL midway, after which the next start cleans up.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { it } from 'node:test';
import { Berthd } from '../../helpers/berthd.js';
import { dockerSaveArchive, makeImage, tarOf } from '../../helpers/image-archives.js';

/** A three-layer image of ~24 MiB of incompressible data. */
async function bigArchive(tag: string): Promise<Buffer> {
  const layers = await Promise.all(
    [0, 1, 2].map((n) => tarOf(Array.from({ length: 8 }, (_, i) => ({ name: `l${n}/f${i}`, content: randomBytes(1024 * 1024) })))),
  );
  return dockerSaveArchive([makeImage(layers, { repoTags: [tag] })]);
}

function entries(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir) : [];
}

function storeState(d: Berthd): { layers: string[]; blobs: string[]; images: string[]; staging: string[] } {
  const image = path.join(d.dataRoot, 'image');
  return {
    layers: entries(path.join(image, 'layers')),
    blobs: entries(path.join(image, 'blobs', 'sha256')),
    images: entries(path.join(image, 'images')),
    staging: entries(path.join(d.dataRoot, 'staging', 'image')),
  };
}

/** Sends the first `bytes` of `body` as a load, and returns once they are written; the request stays open. */
function startLoad(d: Berthd, body: Buffer, bytes: number): Promise<http.ClientRequest> {
  return new Promise((resolve) => {
    const req = http.request({ socketPath: d.socket, method: 'POST', path: '/images/load', headers: { 'Content-Length': body.length } });
    req.on('error', () => undefined);
    req.write(body.subarray(0, bytes), () => resolve(req));
  });
}

async function waitFor(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 300 && !cond(); i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(cond(), 'condition not reached in time');
}

it('a client that goes away midway leaves the store as it was', async () => {
  const d = await Berthd.start();
  try {
    const before = storeState(d);
    const archive = await bigArchive('gone/client:1');
    const req = await startLoad(d, archive, Math.floor(archive.length * 0.6));
    await waitFor(() => storeState(d).staging.length > 0);
    req.destroy();
    await waitFor(() => storeState(d).staging.length === 0);
    assert.deepEqual(storeState(d), before);
    assert.deepEqual((await d.request('GET', '/images/json')).json(), []);
  } finally {
    await d.stop();
  }
});

it('a daemon killed midway leaves nothing the next start does not clean up', async () => {
  const first = await Berthd.start();
  const before = storeState(first);
  const archive = await bigArchive('killed/daemon:1');
  const req = await startLoad(first, archive, Math.floor(archive.length * 0.9));
  await waitFor(() => storeState(first).staging.length > 0);
  await first.stop('SIGKILL');
  req.destroy();
  const second = await Berthd.start({ dataRoot: first.dataRoot });
  try {
    assert.deepEqual(storeState(second), before);
    assert.deepEqual((await second.request('GET', '/images/json')).json(), []);
    // and the store still works
    const r = await second.request('POST', '/images/load', { body: archive, timeoutMs: 60000 });
    assert.match(r.body, /Loaded image: killed\/daemon:1/);
  } finally {
    await second.stop();
  }
});

it('layers and blobs whose image record was never written are collected at the next start', async () => {
  const first = await Berthd.start();
  const before = storeState(first);
  const r = await first.request('POST', '/images/load', { body: await bigArchive('orphan/layers:1'), timeoutMs: 60000 });
  assert.match(r.body, /Loaded image/);
  await first.stop('SIGKILL');
  // as if the daemon had died after committing the layers but before the image record
  for (const f of storeState(first).images) rmSync(path.join(first.dataRoot, 'image', 'images', f));
  const second = await Berthd.start({ dataRoot: first.dataRoot });
  try {
    assert.deepEqual(storeState(second), before);
  } finally {
    await second.stop();
  }
});
