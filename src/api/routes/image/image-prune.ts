// POST /images/prune: dangling images by default; filters dangling=false, until, label.
import { invalidParameter } from '../../../errors.js';
import { FilterArgs } from '../../../lib/filters.js';
import { negativeLabelMatch, untilMillis } from '../../../lib/prune-filters.js';
import type { Handler } from '../../router.js';
import type { ImageBackend } from './backend.js';
import { toDeleteItems } from './to-api.js';

const ACCEPTED_FILTERS = new Set(['dangling', 'until', 'label', 'label!']);

export function imagePrune(backend: ImageBackend): Handler {
  return (ctx) => {
    const filters = FilterArgs.fromJson(ctx.query.get('filters'));
    filters.validate(ACCEPTED_FILTERS);
    const dangling = filters.values('dangling');
    for (const v of dangling) if (!['true', 'false', '1', '0'].includes(v)) throw invalidParameter(`Invalid filter 'dangling=${v}'`);
    const until = filters.values('until')[0];
    const { items, reclaimedBytes } = backend.prune({
      danglingOnly: !dangling.some((v) => v === 'false' || v === '0'),
      untilMs: until === undefined ? undefined : untilMillis(until),
      labels: (labels) => filters.matchKeyValues('label', labels) && !negativeLabelMatch(filters.values('label!'), labels),
    });
    ctx.json({ ImagesDeleted: items.length > 0 ? toDeleteItems(items) : null, SpaceReclaimed: reclaimedBytes });
  };
}
