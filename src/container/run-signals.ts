// When containers' runs begin and end, for whoever follows them from outside the service: attach
// (which waits for a start to connect stdin, and for the end to stop), exec instances (which end
// with their container's run) and, through those, the API's streams. The service signals; others listen.
import { EventEmitter, once } from 'node:events';

export class RunSignals {
  /** `started:<id>`; `ended:<id>` and `ended` (with the ID) */
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  /** A run of the container began. */
  started(id: string): void {
    this.emitter.emit(`started:${id}`);
  }

  /** A run of the container ended, failed to start, or the container went. */
  ended(id: string): void {
    this.emitter.emit(`ended:${id}`);
    this.emitter.emit('ended', id);
  }

  onEnded(listener: (id: string) => void): void {
    this.emitter.on('ended', listener);
  }

  /** Settles at the next end of a run of the container (or its removal). */
  nextEnd(id: string): Promise<void> {
    return once(this.emitter, `ended:${id}`).then(() => undefined);
  }

  /** Settles at the next start of a run of the container, or at its next end (a failed start, a removal). */
  nextStart(id: string): Promise<void> {
    return Promise.race([once(this.emitter, `started:${id}`), once(this.emitter, `ended:${id}`)]).then(() => undefined);
  }
}
