// POST /images/prune: dangling images by default; filters dangling=false, until, label.
import { invalidParameter } from '../../../errors.js';
import { FilterArgs } from '../../../lib/filters.js';
import { parseTimestampNanos } from '../../../lib/timestamp.js';
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

/** `until` as a timestamp, an RFC 3339 date, or a Go duration back from now (10m, 24h). */
function untilMillis(value: string): number {
  const duration = /^(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)$/.exec(value);
  if (duration) {
    const unit: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
    return Date.now() - Number(duration[1]) * unit[duration[2]];
  }
  if (/^\d/.test(value) && !value.includes('-')) return Number((parseTimestampNanos('until', value) as bigint) / 1_000_000n);
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw invalidParameter(`invalid until filter: ${value}`);
  return ms;
}

function negativeLabelMatch(values: string[], labels: Readonly<Record<string, string>>): boolean {
  return values.some((v) => {
    const [k, val] = v.split('=', 2);
    return Object.hasOwn(labels, k) && (val === undefined || labels[k] === val);
  });
}
