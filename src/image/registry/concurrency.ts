// At most n tasks at once, in the order they were asked for.
export class Slots {
  private free: number;
  private readonly queue: Array<() => void> = [];

  constructor(n: number) {
    this.free = Math.max(1, n);
  }

  /** Whether a task asked for now would have to wait. */
  get full(): boolean {
    return this.free === 0;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.queue.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.queue.shift();
      if (next) next();
      else this.free++;
    }
  }
}
