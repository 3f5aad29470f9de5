import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EngineEvent } from './event.js';
import { EventBus, type Subscription } from './event-bus.js';

const ids = (events: EngineEvent[]) => events.map((e) => e.actor.id);

function publishN(bus: EventBus, n: number, prefix = 'c'): EngineEvent[] {
  const out: EngineEvent[] = [];
  for (let i = 1; i <= n; i++) out.push(bus.publish('container', 'start', { id: `${prefix}${i}`, attributes: {} }));
  return out;
}

/** Takes what the subscription delivers until it ends, or fails after `limit` events. */
async function drain(sub: Subscription, limit = 10_000): Promise<EngineEvent[]> {
  const got: EngineEvent[] = [];
  for await (const ev of sub) {
    got.push(ev);
    if (got.length > limit) assert.fail('the subscription did not end');
  }
  return got;
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('EventBus.publish', () => {
  it('returns the event it published, in the local scope by default', () => {
    const bus = new EventBus();
    const ev = bus.publish('daemon', 'reload', { id: 'd1', attributes: { name: 'host' } });
    assert.deepEqual({ ...ev, timeNanos: 0n }, {
      type: 'daemon',
      action: 'reload',
      actor: { id: 'd1', attributes: { name: 'host' } },
      scope: 'local',
      timeNanos: 0n,
    });
    assert.equal(bus.publish('service', 'create', { id: 's1', attributes: {} }, 'swarm').scope, 'swarm');
  });

  it('stamps the wall clock in nanoseconds', () => {
    const bus = new EventBus();
    const before = BigInt(Date.now()) * 1_000_000n;
    const ev = bus.publish('daemon', 'reload', { id: 'd1', attributes: {} });
    const after = BigInt(Date.now()) * 1_000_000n;
    assert.ok(ev.timeNanos >= before - 5_000_000n && ev.timeNanos <= after + 5_000_000n, `${before} <= ${ev.timeNanos} <= ${after}`);
  });

  it('gives strictly increasing times, also to events published in the same microsecond', () => {
    const bus = new EventBus();
    // the clock has microsecond resolution: publish until some events have shared a microsecond
    const events: EngineEvent[] = [];
    let sameMicrosecond = 0;
    while (sameMicrosecond < 20 && events.length < 500_000) {
      const ev = bus.publish('container', 'start', { id: 'c', attributes: {} });
      if (ev.timeNanos % 1000n !== 0n) sameMicrosecond++;
      events.push(ev);
    }
    assert.ok(sameMicrosecond >= 20, `only ${sameMicrosecond} of ${events.length} events shared a microsecond`);
    for (let i = 1; i < events.length; i++) {
      assert.ok(events[i].timeNanos > events[i - 1].timeNanos, `event ${i}: ${events[i].timeNanos} <= ${events[i - 1].timeNanos}`);
    }
  });

  it('never waits for a subscriber', () => {
    const bus = new EventBus({ subscriberQueueSize: 1 });
    bus.subscribe();
    // a subscriber that never reads cannot block publishing
    assert.equal(publishN(bus, 100).length, 100);
  });
});

describe('EventBus history', () => {
  it('keeps 256 events: the 257th pushes out the first', () => {
    const bus = new EventBus();
    const events = publishN(bus, 256);
    assert.deepEqual(ids(bus.subscribe({ sinceNanos: 0n }).past), ids(events));

    bus.publish('container', 'start', { id: 'c257', attributes: {} });
    const past = bus.subscribe({ sinceNanos: 0n }).past;
    assert.equal(past.length, 256);
    assert.equal(past[0].actor.id, 'c2');
    assert.equal(past[255].actor.id, 'c257');
  });

  it('keeps as many as historySize', () => {
    const bus = new EventBus({ historySize: 3 });
    publishN(bus, 5);
    assert.deepEqual(ids(bus.subscribe({ sinceNanos: 0n }).past), ['c3', 'c4', 'c5']);
  });

  it('gives no past events without since or until, as dockerd', () => {
    const bus = new EventBus();
    publishN(bus, 3);
    assert.deepEqual(bus.subscribe().past, []);
    assert.deepEqual(bus.subscribe({ accept: () => true }).past, []);
  });

  it('gives past events in order from since (inclusive)', () => {
    const bus = new EventBus();
    const [, e2, e3] = publishN(bus, 3);
    assert.deepEqual(ids(bus.subscribe({ sinceNanos: 0n }).past), ['c1', 'c2', 'c3']);
    assert.deepEqual(ids(bus.subscribe({ sinceNanos: e2.timeNanos }).past), ['c2', 'c3']);
    assert.deepEqual(ids(bus.subscribe({ sinceNanos: e2.timeNanos + 1n }).past), ['c3']);
    assert.deepEqual(ids(bus.subscribe({ sinceNanos: e3.timeNanos + 1n }).past), []);
  });

  it('gives past events up to until (inclusive)', () => {
    const bus = new EventBus();
    const [e1, e2] = publishN(bus, 3);
    assert.deepEqual(ids(bus.subscribe({ untilNanos: e2.timeNanos }).past), ['c1', 'c2']);
    assert.deepEqual(ids(bus.subscribe({ untilNanos: e2.timeNanos - 1n }).past), ['c1']);
    assert.deepEqual(ids(bus.subscribe({ untilNanos: e1.timeNanos - 1n }).past), []);
  });

  it('gives the one event whose time is both since and until', () => {
    const bus = new EventBus();
    const [, e2] = publishN(bus, 3);
    assert.deepEqual(ids(bus.subscribe({ sinceNanos: e2.timeNanos, untilNanos: e2.timeNanos }).past), ['c2']);
  });

  it('gives everything from since for an until of 0 or less, as dockerd (untilNanoUnix > 0)', () => {
    const bus = new EventBus();
    publishN(bus, 3);
    assert.deepEqual(ids(bus.subscribe({ sinceNanos: 0n, untilNanos: 0n }).past), ['c1', 'c2', 'c3']);
    assert.deepEqual(ids(bus.subscribe({ untilNanos: -1_000_000_000n }).past), ['c1', 'c2', 'c3']);
  });

  it('gives a since before the epoch everything', () => {
    const bus = new EventBus();
    publishN(bus, 2);
    assert.deepEqual(ids(bus.subscribe({ sinceNanos: -1_000_000_000n }).past), ['c1', 'c2']);
  });

  it('filters past events with accept', () => {
    const bus = new EventBus();
    publishN(bus, 4);
    const { past } = bus.subscribe({ sinceNanos: 0n, accept: (e) => e.actor.id === 'c2' || e.actor.id === 'c4' });
    assert.deepEqual(ids(past), ['c2', 'c4']);
  });
});

describe('EventBus live subscriptions', () => {
  it('delivers events published after subscribing, in order, and not those before', async () => {
    const bus = new EventBus();
    publishN(bus, 2, 'old');
    const { live } = bus.subscribe({ sinceNanos: 0n });
    publishN(bus, 3, 'new');
    live.close();
    assert.deepEqual(ids(await drain(live)), ['new1', 'new2', 'new3']);
  });

  it('wakes a waiting reader', async () => {
    const bus = new EventBus();
    const { live } = bus.subscribe();
    const it = live[Symbol.asyncIterator]();
    const next = it.next();
    await tick();
    bus.publish('daemon', 'reload', { id: 'd1', attributes: {} });
    const r = await next;
    assert.equal(r.done, false);
    assert.equal((r.value as EngineEvent).actor.id, 'd1');
    live.close();
  });

  it('delivers live events only when accept takes them', async () => {
    const bus = new EventBus();
    const { live } = bus.subscribe({ accept: (e) => e.type === 'daemon' });
    bus.publish('container', 'start', { id: 'c1', attributes: {} });
    bus.publish('daemon', 'reload', { id: 'd1', attributes: {} });
    live.close();
    assert.deepEqual(ids(await drain(live)), ['d1']);
  });

  it('does not hold live events to since or until (the caller ends the stream at until)', async () => {
    const bus = new EventBus();
    const { live } = bus.subscribe({ sinceNanos: 2n ** 62n, untilNanos: 1n });
    bus.publish('daemon', 'reload', { id: 'd1', attributes: {} });
    live.close();
    assert.deepEqual(ids(await drain(live)), ['d1']);
  });

  it('counts subscribers', () => {
    const bus = new EventBus();
    assert.equal(bus.subscriberCount, 0);
    const a = bus.subscribe().live;
    const b = bus.subscribe().live;
    assert.equal(bus.subscriberCount, 2);
    a.close();
    assert.equal(bus.subscriberCount, 1);
    b.close();
    assert.equal(bus.subscriberCount, 0);
  });

  it('close() ends a waiting iteration and unsubscribes', async () => {
    const bus = new EventBus();
    const { live } = bus.subscribe();
    const it = live[Symbol.asyncIterator]();
    const next = it.next();
    await tick();
    live.close();
    assert.deepEqual(await next, { done: true, value: undefined });
    assert.equal(bus.subscriberCount, 0);
  });

  it('close() is idempotent, and nothing is delivered after it', async () => {
    const bus = new EventBus();
    const { live } = bus.subscribe();
    live.close();
    live.close();
    bus.publish('daemon', 'reload', { id: 'd1', attributes: {} });
    assert.deepEqual(await drain(live), []);
    assert.equal(live.dropped, false);
  });

  it('leaving a for-await loop closes the subscription', async () => {
    const bus = new EventBus();
    const { live } = bus.subscribe();
    publishN(bus, 3);
    for await (const ev of live) {
      assert.equal(ev.actor.id, 'c1');
      break;
    }
    assert.equal(bus.subscriberCount, 0);
    bus.publish('daemon', 'reload', { id: 'd1', attributes: {} });
    assert.ok(!ids(await drain(live)).includes('d1'));
  });
});

describe('EventBus slow subscribers', () => {
  it('keeps a subscriber with exactly subscriberQueueSize undelivered events', () => {
    const bus = new EventBus({ subscriberQueueSize: 3 });
    const { live } = bus.subscribe();
    publishN(bus, 3);
    assert.equal(live.dropped, false);
    assert.equal(bus.subscriberCount, 1);
    live.close();
  });

  it('drops a subscriber that falls further behind, while the others keep receiving', async () => {
    const bus = new EventBus({ subscriberQueueSize: 3 });
    const slow = bus.subscribe().live;
    const fast = bus.subscribe().live;
    const fastIt = fast[Symbol.asyncIterator]();
    const fastGot: string[] = [];
    for (let i = 1; i <= 10; i++) {
      bus.publish('container', 'start', { id: `c${i}`, attributes: {} });
      const r = await fastIt.next();
      fastGot.push((r.value as EngineEvent).actor.id);
      if (i === 3) assert.equal(slow.dropped, false);
      if (i === 4) {
        assert.equal(slow.dropped, true);
        assert.equal(bus.subscriberCount, 1);
      }
    }
    assert.deepEqual(fastGot, ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9', 'c10']);
    assert.equal(fast.dropped, false);

    // the dropped subscriber's stream ends: it gets at most what it had queued, nothing after the cut
    const slowGot = ids(await drain(slow));
    assert.deepEqual(slowGot, ['c1', 'c2', 'c3']);
    fast.close();
  });

  it('does not count events that accept refuses against the queue', () => {
    const bus = new EventBus({ subscriberQueueSize: 2 });
    const { live } = bus.subscribe({ accept: (e) => e.type === 'daemon' });
    publishN(bus, 50);
    assert.equal(live.dropped, false);
    assert.equal(bus.subscriberCount, 1);
    live.close();
  });

  it('drops with the default queue size of 1024', () => {
    const bus = new EventBus();
    const { live } = bus.subscribe();
    publishN(bus, 1024);
    assert.equal(live.dropped, false);
    publishN(bus, 1, 'x');
    assert.equal(live.dropped, true);
    assert.equal(bus.subscriberCount, 0);
  });
});
