import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EVENT_LOOP_BUCKETS, EventLoopDelay } from './event-loop-delay.js';
import { Histogram } from './metrics-registry.js';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

function busy(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end);
}

test('a loop held for 150 ms shows as a delay over 100 ms; a fold takes what was recorded and starts afresh', async () => {
  const h = new Histogram('berth_event_loop_delay_seconds', 'test', EVENT_LOOP_BUCKETS);
  const watch = new EventLoopDelay(h);
  try {
    await tick(50);
    busy(150);
    await tick(50);
    watch.fold();
    const family = h.family();
    assert.equal(family.type, 'histogram');
    const series = family.samples[0] as { counts: readonly number[]; sum: number; count: number };
    assert.ok(series.count > 0);
    // the timer due during the hold ran at least 140 ms late: one interval lies past the 0.1 s bound
    const upTo100ms = series.counts.slice(0, EVENT_LOOP_BUCKETS.indexOf(0.1) + 1).reduce((a, b) => a + b, 0);
    assert.ok(upTo100ms < series.count, `${upTo100ms} of ${series.count} intervals at or under 0.1 s`);
    assert.ok(series.sum >= 0.14, `sum ${series.sum}`);
    assert.ok(series.counts.reduce((a, b) => a + b, 0) <= series.count);
    const before = series.count;
    watch.fold();
    assert.equal(series.count, before, 'nothing recorded since the last fold adds nothing');
  } finally {
    watch.stop();
  }
});
