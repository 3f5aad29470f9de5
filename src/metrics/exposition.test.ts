import assert from 'node:assert/strict';
import { it } from 'node:test';
import { formatExposition } from './exposition.js';
import { Counter, Histogram } from './metrics-registry.js';

it('writes HELP, TYPE and samples, escaping label values and help text', () => {
  const c = new Counter('c_total', 'a "count"\nof things \\ here', true);
  c.inc({ path: 'a"b\\c\nd' }, 2);
  assert.equal(formatExposition([c.family()]), '# HELP c_total a "count"\\nof things \\\\ here\n# TYPE c_total counter\nc_total{path="a\\"b\\\\c\\nd"} 2\n');
});

it('an unlabelled counter starts at 0; a labelled one has no series before its first increment', () => {
  assert.match(formatExposition([new Counter('a_total', 'a').family()]), /^a_total 0$/m);
  assert.doesNotMatch(formatExposition([new Counter('b_total', 'b', true).family()]), /^b_total/m);
});

it('writes a histogram as cumulative buckets ending at +Inf, then _sum and _count', () => {
  const h = new Histogram('h_seconds', 'h', [0.1, 1]);
  h.declare({ action: 'idle' });
  h.observe({ action: 'x' }, 0.05);
  h.observe({ action: 'x' }, 0.5);
  h.observe({ action: 'x' }, 3);
  assert.equal(
    formatExposition([h.family()]),
    [
      '# HELP h_seconds h',
      '# TYPE h_seconds histogram',
      'h_seconds_bucket{action="idle",le="0.1"} 0',
      'h_seconds_bucket{action="idle",le="1"} 0',
      'h_seconds_bucket{action="idle",le="+Inf"} 0',
      'h_seconds_sum{action="idle"} 0',
      'h_seconds_count{action="idle"} 0',
      'h_seconds_bucket{action="x",le="0.1"} 1',
      'h_seconds_bucket{action="x",le="1"} 2',
      'h_seconds_bucket{action="x",le="+Inf"} 3',
      'h_seconds_sum{action="x"} 3.55',
      'h_seconds_count{action="x"} 3',
      '',
    ].join('\n'),
  );
});
