import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EngineError } from '../errors.js';
import { FilterArgs } from '../lib/filters.js';
import { sha256Digest } from './digest.js';
import { NoSuchImageError } from './image-errors.js';
import { pruneSelection, selectImages } from './image-filters.js';
import type { Image } from './image-store.js';

function image(name: string, opts: { tags?: string[]; digests?: string[]; created?: string; labels?: Record<string, string> } = {}): Image {
  const tags = opts.tags ?? [];
  const digests = opts.digests ?? [];
  return {
    id: sha256Digest(name),
    config: { created: opts.created, config: opts.labels ? { Labels: opts.labels } : {}, rootfs: { type: 'layers', diff_ids: [] } },
    refs: [...tags, ...digests].map((r) => `docker.io/library/${r}`),
    repoTags: tags,
    repoDigests: digests,
    sizeBytes: 0,
    topLayer: null,
  };
}

const old = image('old', { tags: ['app:1'], created: '2020-01-01T00:00:00Z', labels: { tier: 'web', keep: 'yes' } });
const mid = image('mid', { tags: ['app:2', 'other:2'], created: '2021-01-01T00:00:00Z', labels: { tier: 'db' } });
const untagged = image('untagged', { created: '2022-01-01T00:00:00Z' });
const digestOnly = image('digest-only', { digests: [`app@${sha256Digest('x')}`], created: '2023-01-01T00:00:00Z' });
const all = [old, mid, untagged, digestOnly];

const filters = (json: Record<string, string[]>) => FilterArgs.fromJson(JSON.stringify(json));
const nameOf = new Map([[old.id, 'old'], [mid.id, 'mid'], [untagged.id, 'untagged'], [digestOnly.id, 'digestOnly']]);
const names = (images: Image[]) => images.map((i) => nameOf.get(i.id));
const get = (ref: string): Image => {
  const found = all.find((i) => i.repoTags.includes(ref) || i.id === ref);
  if (found === undefined) throw new NoSuchImageError(ref);
  return found;
};

describe('selectImages', () => {
  it('lists every image newest first without filters', () => {
    assert.deepEqual(names(selectImages(all, FilterArgs.empty(), get)), ['digestOnly', 'untagged', 'mid', 'old']);
  });

  it('takes dangling as an image without tags, and refuses other values in dockerd words', () => {
    assert.deepEqual(names(selectImages(all, filters({ dangling: ['true'] }), get)), ['digestOnly', 'untagged']);
    assert.deepEqual(names(selectImages(all, filters({ dangling: ['0'] }), get)), ['mid', 'old']);
    assert.throws(() => selectImages(all, filters({ dangling: ['maybe'] }), get), { message: "Invalid filter 'dangling=maybe'" });
  });

  it('matches labels by key or key=value', () => {
    assert.deepEqual(names(selectImages(all, filters({ label: ['tier'] }), get)), ['mid', 'old']);
    assert.deepEqual(names(selectImages(all, filters({ label: ['tier=web'] }), get)), ['old']);
  });

  it('compares before and since with the creation of the image they name, which must exist', () => {
    assert.deepEqual(names(selectImages(all, filters({ before: ['app:2'] }), get)), ['old']);
    assert.deepEqual(names(selectImages(all, filters({ since: ['app:2'] }), get)), ['digestOnly', 'untagged']);
    assert.throws(() => selectImages(all, filters({ since: ['nope:1'] }), get), NoSuchImageError);
  });

  it('matches reference as a glob on the familiar reference or its name, and shows only the names that match', () => {
    const app = selectImages(all, filters({ reference: ['app'] }), get);
    assert.deepEqual(names(app), ['digestOnly', 'mid', 'old']);
    assert.deepEqual(app.map((i) => [i.repoTags, i.repoDigests]), [[[], [`app@${sha256Digest('x')}`]], [['app:2'], []], [['app:1'], []]]);
    assert.deepEqual(names(selectImages(all, filters({ reference: ['app:1'] }), get)), ['old']);
    const other = selectImages(all, filters({ reference: ['oth*'] }), get);
    assert.deepEqual(other.map((i) => [nameOf.get(i.id), i.repoTags]), [['mid', ['other:2']]]);
  });

  it('refuses a filter the list does not know', () => {
    assert.throws(
      () => selectImages(all, filters({ until: ['1h'] }), get),
      (err: unknown) => err instanceof EngineError && err.kind === 'invalidParameter' && err.message === "invalid filter 'until'",
    );
  });
});

describe('pruneSelection', () => {
  const pruned = (json: Record<string, string[]>) => names(all.filter(pruneSelection(filters(json))));

  it('takes only images without any name by default, every one with dangling=false', () => {
    assert.deepEqual(pruned({}), ['untagged']);
    assert.deepEqual(pruned({ dangling: ['false'] }), ['old', 'mid', 'untagged', 'digestOnly']);
    assert.throws(() => pruneSelection(filters({ dangling: ['yes'] })), { message: "Invalid filter 'dangling=yes'" });
  });

  it('takes images created before until', () => {
    assert.deepEqual(pruned({ dangling: ['false'], until: ['2021-06-01T00:00:00Z'] }), ['old', 'mid']);
  });

  it('takes images with the label, and spares those with a label! one', () => {
    assert.deepEqual(pruned({ dangling: ['false'], label: ['tier'] }), ['old', 'mid']);
    assert.deepEqual(pruned({ dangling: ['false'], 'label!': ['keep=yes'] }), ['mid', 'untagged', 'digestOnly']);
    assert.deepEqual(pruned({ dangling: ['false'], label: ['tier'], 'label!': ['keep'] }), ['mid']);
  });

  it('refuses a filter prune does not know before selecting anything', () => {
    assert.throws(() => pruneSelection(filters({ reference: ['app'] })), { message: "invalid filter 'reference'" });
  });
});
