// The one shape of every endpoint that streams (attach, logs, stats, exec start, events, wait,
// load, import, save, export, and next pull, push, build and service logs). The backend checks the
// request and answers with a session, or throws: every failure up to then is a status code. The
// route then sends its head and runs the session against its writer, the client's input and the
// signal that fires when the client goes. What the session publishes (attach, detach, ...) it
// publishes while it runs. After the head, a failure is the route's to put in-band.
import type { Readable } from 'node:stream';

export interface StreamSession<Sink, Result = void> {
  run(io: SessionIo<Sink>): Promise<Result>;
}

export interface SessionIo<Sink> {
  out: Sink;
  /** the client's bytes: stdin of attach and exec, the archive of load and import */
  input?: Readable;
  /** fires when the client goes away or the daemon stops */
  signal: AbortSignal;
}

export type OutputStream = 'stdout' | 'stderr';

/** Container output, frame by frame (the API's mux writer, raw under a TTY). A rejected write is a client that is gone. */
export interface FrameSink {
  write(stream: OutputStream, data: Buffer): Promise<void>;
}

/** Records one at a time (stats frames, events). A rejected write is a client that is gone. */
export interface ItemSink<T> {
  write(item: T): Promise<void>;
}

/**
 * Docker's JSON progress messages (jsonmessage), as load, import, pull, push and build write them.
 * A session throws to fail; the writer puts the error in-band once its head is out.
 */
export interface ProgressSink {
  /** {"stream": text}: a line of output (build steps, load's "Loaded image: ..." lines) */
  stream(text: string): Promise<void>;
  /** {"status": text, "id": id}: a step, of one layer or image when `id` is given */
  status(text: string, id?: string): Promise<void>;
  /** {"status": action, "id": id, "progressDetail": {current, total}, "progress": bar} */
  progress(id: string, action: string, currentBytes: number, totalBytes?: number): Promise<void>;
  /** {"aux": value}: a result for the client's program (build's image ID, push's digest) */
  aux(value: unknown): Promise<void>;
}
