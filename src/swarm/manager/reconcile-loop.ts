// How the leader's loops run: a pass after each change a watch reports and one each period, for
// what a watch cannot tell (a leader that just took over, a write that lost a race); one pass at a
// time, and a change during a pass asks for another.
import type { Logger } from 'pino';
import type { Watch } from '../store/cluster-store.js';

export class ReconcileLoop {
  private watch: Watch | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private wake: { at: number; timer: NodeJS.Timeout } | undefined;
  private stopped = false;

  constructor(
    private readonly name: string,
    private readonly pass: () => Promise<void>,
    private readonly watchChanges: (onChange: () => void) => Watch,
    private readonly periodMs: () => number,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.watch = this.watchChanges(() => this.trigger());
    this.timer = setInterval(() => this.trigger(), this.periodMs());
    this.trigger();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.watch?.cancel();
    clearInterval(this.timer);
    await this.running;
    clearTimeout(this.wake?.timer);
    this.wake = undefined;
  }

  /** A pass in `ms` at the latest, for what only time decides (a delay that runs out). */
  passIn(ms: number): void {
    if (this.stopped) return;
    const at = Date.now() + ms;
    if (this.wake !== undefined && this.wake.at <= at) return;
    clearTimeout(this.wake?.timer);
    this.wake = {
      at,
      timer: setTimeout(() => {
        this.wake = undefined;
        this.trigger();
      }, ms),
    };
  }

  /** Another pass once this one ends (a write of the pass that lost a race). */
  passAgain(): void {
    this.again = true;
  }

  private trigger(): void {
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.pass().catch((err: unknown) => this.log.debug({ err }, `swarm: ${this.name} pass failed`));
      } while (this.again);
      this.running = undefined;
    })();
  }
}
