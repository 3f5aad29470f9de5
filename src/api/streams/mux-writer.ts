// Container output on the wire, as Docker's stdcopy frames it: an 8-byte header
//   [stream: 0 stdin, 1 stdout, 2 stderr, 3 the daemon's own error] 0 0 0 [payload length: uint32 big-endian]
// then the payload, header and payload in one write() so no reader sees half a frame. Under a TTY
// there is one stream and no header. The producer waits for 'drain' when the socket's buffer is
// full; a write that fails, or a connection that closes while the producer waits, rejects, so the
// session ends instead of writing into the void.
import type { Writable } from 'node:stream';

export type OutputStream = 'stdout' | 'stderr';
/** what a frame can carry besides stdin: stdcopy's Systemerr is an error the daemon reports mid-stream */
type FramedStream = OutputStream | 'systemerr';

const STREAM_ID: Record<FramedStream, number> = { stdout: 1, stderr: 2, systemerr: 3 };
export const FRAME_HEADER_BYTES = 8;

/** The connection went away, or failed, under a writer. */
export class StreamClosedError extends Error {
  readonly code = 'ERR_STREAM_CLOSED';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StreamClosedError';
  }
}

export class MuxWriter {
  private readonly out: Writable;
  private readonly tty: boolean;
  private failure: Error | undefined;

  constructor(out: Writable, opts: { tty: boolean }) {
    this.out = out;
    this.tty = opts.tty;
    // Kept for the next write: an error event with no listener would crash the daemon.
    out.on('error', (err) => {
      this.failure ??= new StreamClosedError(`the connection failed: ${err.message}`, { cause: err });
    });
  }

  /** Sends one chunk of one stream; resolves once the socket can take more. */
  async write(stream: FramedStream, data: Buffer): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.out.destroyed || this.out.writableEnded) throw new StreamClosedError('the connection is closed');
    if (data.length === 0) return;
    const ok = this.out.write(this.tty ? data : frame(stream, data));
    if (!ok) await this.drained();
  }

  private drained(): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = (err?: Error): void => {
        this.out.off('drain', onDrain);
        this.out.off('close', onClose);
        this.out.off('error', onError);
        if (err) reject(err);
        else resolve();
      };
      const onDrain = (): void => done();
      const onClose = (): void => done(this.failure ?? new StreamClosedError('the connection closed'));
      const onError = (err: Error): void => done(new StreamClosedError(`the connection failed: ${err.message}`, { cause: err }));
      this.out.on('drain', onDrain);
      this.out.once('close', onClose);
      this.out.once('error', onError);
    });
  }
}

/** One stdcopy frame: header and payload in one buffer. */
export function frame(stream: FramedStream | 'stdin', data: Buffer): Buffer {
  const buf = Buffer.allocUnsafe(FRAME_HEADER_BYTES + data.length);
  buf.writeUInt32BE(0, 0);
  buf[0] = stream === 'stdin' ? 0 : STREAM_ID[stream];
  buf.writeUInt32BE(data.length, 4);
  data.copy(buf, FRAME_HEADER_BYTES);
  return buf;
}
