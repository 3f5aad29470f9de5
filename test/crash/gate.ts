// Where the clients wait while the daemon is killed, restarted and checked: closed before the
// kill, opened after the checks. The harness waits until every client is waiting (its request cut
// or refused), so that no request is in flight during a restart or a check.
export class Gate {
  private closed: { promise: Promise<void>; open: () => void } | undefined;
  private waiting = 0;
  private finished = 0;
  private readonly watchers = new Set<() => void>();

  constructor(private readonly clients: number) {}

  async pass(): Promise<void> {
    while (this.closed !== undefined) {
      this.waiting++;
      this.notify();
      await this.closed.promise;
      this.waiting--;
    }
  }

  close(): void {
    if (this.closed !== undefined) return;
    let open!: () => void;
    const promise = new Promise<void>((resolve) => (open = resolve));
    this.closed = { promise, open };
  }

  open(): void {
    const c = this.closed;
    this.closed = undefined;
    c?.open();
  }

  /** A client's loop ended. */
  done(): void {
    this.finished++;
    this.notify();
  }

  /** Resolves once every client waits at the gate or has ended. */
  idle(): Promise<void> {
    return new Promise((resolve) => {
      const test = () => {
        if (this.waiting + this.finished >= this.clients) {
          this.watchers.delete(test);
          resolve();
        }
      };
      this.watchers.add(test);
      test();
    });
  }

  private notify(): void {
    for (const w of [...this.watchers]) w();
  }
}
