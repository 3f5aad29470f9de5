// A build's stream as dockerd writes it (moby v20.10 api/server/router/build/build_routes.go,
// pkg/streamformatter): each write of the builder's stdout is one {"stream"} record, stderr's the
// same wrapped in the terminal's red, the image IDs {"aux"} records. With q, everything is held
// back: a build that succeeds shows only its image ID, one that fails what it held, then its error.
import type { FrameSink, ProgressSink } from '../../lib/stream-session.js';

const RED = '\u001b[91m';
const RESET = '\u001b[0m';

export class BuildOutput {
  private held: Array<() => Promise<void>> | undefined;

  constructor(
    private readonly sink: ProgressSink,
    quiet: boolean,
  ) {
    if (quiet) this.held = [];
  }

  /** Where pulls of base images write their progress (held back too under q). */
  get progress(): ProgressSink {
    return {
      stream: (text) => this.stdout(text),
      status: (text, id) => this.emit(() => this.sink.status(text, id)),
      progress: (id, action, current, total) => this.emit(() => this.sink.progress(id, action, current, total)),
      aux: (value) => this.emit(() => this.sink.aux(value)),
    };
  }

  /** A step's container output. */
  get frames(): FrameSink {
    return { write: (stream, data) => (stream === 'stdout' ? this.stdout(data.toString()) : this.stderr(data.toString())) };
  }

  stdout(text: string): Promise<void> {
    return this.emit(() => this.sink.stream(text));
  }

  stderr(text: string): Promise<void> {
    return this.emit(() => this.sink.stream(`${RED}${text}${RESET}`));
  }

  aux(value: unknown): Promise<void> {
    return this.emit(() => this.sink.aux(value));
  }

  /** q: the image ID alone. */
  async finish(imageId: string): Promise<void> {
    if (this.held !== undefined) await this.sink.stream(`${imageId}\n`);
  }

  /** q: a failed build shows what it held back before its error. */
  async flushHeld(): Promise<void> {
    const held = this.held ?? [];
    this.held = undefined;
    for (const write of held) await write();
  }

  private emit(write: () => Promise<void>): Promise<void> {
    if (this.held === undefined) return write();
    this.held.push(write);
    return Promise.resolve();
  }
}
