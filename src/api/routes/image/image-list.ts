// GET /images/json with dockerd's filters (dangling, label, before, since, reference) and shared-size.
// `all` and `digests` change nothing here: berth has no intermediate images, and always lists digests.
import { invalidParameter } from '../../../errors.js';
import type { Image } from '../../../image/image-service.js';
import { FilterArgs } from '../../../lib/filters.js';
import { globMatch } from '../../../lib/glob.js';
import { queryBool } from '../../query.js';
import type { Handler } from '../../router.js';
import type { ImageBackend } from './backend.js';
import { toImageSummary } from './to-api.js';

const ACCEPTED_FILTERS = new Set(['dangling', 'label', 'before', 'since', 'reference']);

export function imageList(backend: ImageBackend): Handler {
  return (ctx) => {
    const filters = FilterArgs.fromJson(ctx.query.get('filters'));
    filters.validate(ACCEPTED_FILTERS);
    let images = backend.list();
    for (const value of filters.values('dangling')) {
      if (!['true', 'false', '1', '0'].includes(value)) throw invalidParameter(`Invalid filter 'dangling=${value}'`);
      const dangling = value === 'true' || value === '1';
      images = images.filter((i) => (i.repoTags.length === 0) === dangling);
    }
    if (filters.has('label')) images = images.filter((i) => filters.matchKeyValues('label', labelsOf(i)));
    for (const ref of filters.values('before')) {
      const at = createdMs(backend.get(ref));
      images = images.filter((i) => createdMs(i) < at);
    }
    for (const ref of filters.values('since')) {
      const at = createdMs(backend.get(ref));
      images = images.filter((i) => createdMs(i) > at);
    }
    const patterns = filters.values('reference');
    if (patterns.length > 0) images = images.filter((i) => i.repoTags.some((t) => patterns.some((p) => matchReference(p, t))));
    images.sort((a, b) => createdMs(b) - createdMs(a));
    const shared = queryBool(ctx.query, 'shared-size') ? backend.usage().sharedSizeBytes : undefined;
    ctx.json(images.map((i) => toImageSummary(i, shared?.get(i.id) ?? -1)));
  };
}

function labelsOf(image: Image): Record<string, string> {
  return (image.config.config?.Labels as Record<string, string> | null | undefined) ?? {};
}

function createdMs(image: Image): number {
  return image.config.created ? Date.parse(image.config.created) : 0;
}

/** dockerd matches a `reference` filter as a path glob against the familiar name, with or without its tag. */
function matchReference(pattern: string, tag: string): boolean {
  return globMatch(pattern, tag) || globMatch(pattern, tag.replace(/:[^:/]*$/, ''));
}
