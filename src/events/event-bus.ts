// The engine's event bus. Every area publishes into it; /events subscribes. Recent events stay in a
// ring for `since`/`until`; each subscriber has a bounded queue, and one that falls too far behind
// is dropped, so publishers never wait.
import { nowNanos } from '../lib/timestamp.js';
import type { EngineEvent, EventActor, EventType } from './event.js';

export interface EventBusOptions {
  /** How many past events are kept for `since` (moby keeps 256). */
  historySize?: number;
  /** How many undelivered events a subscriber may have before it is dropped. */
  subscriberQueueSize?: number;
}

export interface SubscribeOptions {
  sinceNanos?: bigint;
  untilNanos?: bigint;
  accept?: (ev: EngineEvent) => boolean;
}

export class EventBus {
  private readonly historySize: number;
  private readonly subscriberQueueSize: number;
  private readonly history: EngineEvent[] = [];
  private readonly subscribers = new Set<Subscription>();
  private lastNanos = 0n;
  private published = 0;

  constructor(options: EventBusOptions = {}) {
    this.historySize = options.historySize ?? 256;
    this.subscriberQueueSize = options.subscriberQueueSize ?? 1024;
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  /** How many events were published since the daemon started (the metrics' events_total). */
  get publishedCount(): number {
    return this.published;
  }

  publish(type: EventType, action: string, actor: EventActor, scope: EngineEvent['scope'] = 'local'): EngineEvent {
    let timeNanos = nowNanos();
    if (timeNanos <= this.lastNanos) timeNanos = this.lastNanos + 1n;
    this.lastNanos = timeNanos;
    this.published++;
    const ev: EngineEvent = { type, action, actor, scope, timeNanos };
    this.history.push(ev);
    if (this.history.length > this.historySize) this.history.shift();
    for (const sub of this.subscribers) sub.offer(ev);
    return ev;
  }

  /**
   * Past events (only when `since` or `until` is given, as dockerd) and a live subscription.
   * Live events are not held to `since`; the caller ends the subscription at `until`.
   */
  subscribe(options: SubscribeOptions = {}): { past: EngineEvent[]; live: Subscription } {
    const accept = options.accept ?? (() => true);
    const past: EngineEvent[] = [];
    if (options.sinceNanos !== undefined || options.untilNanos !== undefined) {
      const since = options.sinceNanos ?? 0n;
      const until = options.untilNanos !== undefined && options.untilNanos > 0n ? options.untilNanos : undefined;
      for (const ev of this.history) {
        if (ev.timeNanos < since) continue;
        if (until !== undefined && ev.timeNanos > until) continue;
        if (accept(ev)) past.push(ev);
      }
    }
    const live = new Subscription(accept, this.subscriberQueueSize, (s) => this.subscribers.delete(s));
    this.subscribers.add(live);
    return { past, live };
  }
}

/** One subscriber's queue, read as an async iterator that ends when the subscription is closed or dropped. */
export class Subscription implements AsyncIterable<EngineEvent> {
  private readonly accept: (ev: EngineEvent) => boolean;
  private readonly queueSize: number;
  private readonly onClose: (s: Subscription) => void;
  private readonly queue: EngineEvent[] = [];
  private wake: (() => void) | undefined;
  private closed = false;
  /** Set when the subscriber fell behind and was cut off. */
  dropped = false;

  constructor(accept: (ev: EngineEvent) => boolean, queueSize: number, onClose: (s: Subscription) => void) {
    this.accept = accept;
    this.queueSize = queueSize;
    this.onClose = onClose;
  }

  offer(ev: EngineEvent): void {
    if (this.closed || !this.accept(ev)) return;
    if (this.queue.length >= this.queueSize) {
      this.dropped = true;
      this.close();
      return;
    }
    this.queue.push(ev);
    this.notify();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose(this);
    this.notify();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<EngineEvent> {
    try {
      for (;;) {
        const ev = this.queue.shift();
        if (ev !== undefined) {
          yield ev;
          continue;
        }
        if (this.closed) return;
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
      }
    } finally {
      this.close();
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
