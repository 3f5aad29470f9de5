// The filters of GET /images/json (dangling, label, before, since, reference; newest first) and of
// POST /images/prune (dangling, until, label, label!), with dockerd's errors.
import { invalidParameter } from '../errors.js';
import type { FilterArgs } from '../lib/filters.js';
import { globMatch } from '../lib/glob.js';
import { negativeLabelMatch, untilMillis } from '../lib/prune-filters.js';
import type { Image } from './image-store.js';

const LIST_FILTERS = new Set(['dangling', 'label', 'before', 'since', 'reference']);
const PRUNE_FILTERS = new Set(['dangling', 'until', 'label', 'label!']);
const BOOLEANS = ['true', 'false', '1', '0'];

/** The images the list filters keep, newest first; `get` finds the image a before/since value names (or throws 404). */
export function selectImages(images: Image[], filters: FilterArgs, get: (refOrId: string) => Image): Image[] {
  filters.validate(LIST_FILTERS);
  let selected = images;
  for (const value of filters.values('dangling')) {
    if (!BOOLEANS.includes(value)) throw invalidParameter(`Invalid filter 'dangling=${value}'`);
    const dangling = value === 'true' || value === '1';
    selected = selected.filter((i) => (i.repoTags.length === 0) === dangling);
  }
  if (filters.has('label')) selected = selected.filter((i) => filters.matchKeyValues('label', labelsOf(i)));
  for (const ref of filters.values('before')) {
    const at = createdMs(get(ref));
    selected = selected.filter((i) => createdMs(i) < at);
  }
  for (const ref of filters.values('since')) {
    const at = createdMs(get(ref));
    selected = selected.filter((i) => createdMs(i) > at);
  }
  const patterns = filters.values('reference');
  if (patterns.length > 0) {
    // as dockerd: only the names that match are shown, and an image with none is left out
    const matching = (refs: string[]) => refs.filter((r) => patterns.some((p) => matchReference(p, r)));
    selected = selected
      .map((i) => ({ ...i, repoTags: matching(i.repoTags), repoDigests: matching(i.repoDigests) }))
      .filter((i) => i.repoTags.length + i.repoDigests.length > 0);
  }
  return [...selected].sort((a, b) => createdMs(b) - createdMs(a));
}

/**
 * Which images a prune may delete: untagged ones only unless dangling is false, created before
 * `until`, with the labels asked for and none of the `label!` ones. Checked before anything goes.
 */
export function pruneSelection(filters: FilterArgs): (image: Image) => boolean {
  filters.validate(PRUNE_FILTERS);
  const dangling = filters.values('dangling');
  for (const v of dangling) if (!BOOLEANS.includes(v)) throw invalidParameter(`Invalid filter 'dangling=${v}'`);
  const danglingOnly = !dangling.some((v) => v === 'false' || v === '0');
  const until = filters.values('until')[0];
  const untilMs = until === undefined ? undefined : untilMillis(until);
  const excluded = filters.values('label!');
  return (image) => {
    if (danglingOnly && image.refs.length > 0) return false;
    if (untilMs !== undefined && Date.parse(image.config.created ?? '') >= untilMs) return false;
    const labels = labelsOf(image);
    return filters.matchKeyValues('label', labels) && !negativeLabelMatch(excluded, labels);
  };
}

function labelsOf(image: Image): Record<string, string> {
  return (image.config.config?.Labels as Record<string, string> | null | undefined) ?? {};
}

function createdMs(image: Image): number {
  return image.config.created ? Date.parse(image.config.created) : 0;
}

/**
 * dockerd's FamiliarMatch: a path glob against the familiar reference (busybox:1, busybox@sha256:…),
 * or else against its name alone.
 */
function matchReference(pattern: string, ref: string): boolean {
  return globMatch(pattern, ref) || globMatch(pattern, ref.replace(/@.*$/, '').replace(/:[^:/]*$/, ''));
}
