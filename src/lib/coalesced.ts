// Work that changes ask for, done once per round however many changes came: a round starts on the
// next turn of the event loop, so that the changes of one turn share it, and changes during a
// round make one more round after it. `run` must not reject: it logs its own failures.
export class Coalesced {
  private round: Promise<void> | undefined;
  private again = false;

  constructor(private readonly run: () => Promise<void>) {}

  /** Asks for a round. */
  request(): void {
    if (this.round !== undefined) {
      this.again = true;
      return;
    }
    this.round = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.run())
      .finally(() => {
        this.round = undefined;
        if (this.again) {
          this.again = false;
          this.request();
        }
      });
  }

  /** Settles once every round asked for so far is done. */
  async settled(): Promise<void> {
    while (this.round !== undefined) await this.round;
  }
}
