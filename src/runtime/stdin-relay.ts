// The way into a container's stdin: conmon's attach socket is SOCK_SEQPACKET, which node:net cannot
// open, so socat relays between a pipe and the socket:
//   socat -  UNIX-CONNECT:<attach>,type=5
// What goes into socat's stdin reaches the container's stdin, one packet per read. conmon also sends
// the container's output to every attached client, prefixed with a stream byte; socat reads it (a
// client that does not read could stall conmon) into /dev/null, as output is read from the log.
// Ending socat's stdin makes it shut down its side of the socket: conmon then closes the
// container's stdin, unless it was started with --leave-stdin-open (Docker's StdinOnce=false).
// When the container ends, conmon closes the socket and socat exits.
import { spawn } from 'node:child_process';
import { EngineError } from '../errors.js';

export interface StdinRelay {
  /** Sends bytes to the container's stdin; resolves once the pipe can take more. */
  write(data: Buffer): Promise<void>;
  /** No more input: conmon closes the container's stdin (unless it leaves stdin open). */
  end(): void;
  /** Stops the relay at once; the container's stdin is closed as by end(). */
  close(): void;
  /** Resolves when socat has exited and been reaped; rejects with StdinRelayError when it failed. */
  readonly closed: Promise<void>;
}

/** socat could not be run, could not connect, or failed while relaying. */
export class StdinRelayError extends EngineError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('system', message, options);
    this.name = 'StdinRelayError';
  }
}

const MAX_CAPTURED_BYTES = 4096;

export function openStdinRelay(attachSocketPath: string, opts: { socatPath?: string } = {}): StdinRelay {
  const child = spawn(opts.socatPath ?? 'socat', ['-', `UNIX-CONNECT:${attachSocketPath},type=5`], {
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  const stdin = child.stdin;
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < MAX_CAPTURED_BYTES) stderr += chunk.toString('utf8');
  });
  let closing = false;
  let failure: StdinRelayError | undefined;
  // EPIPE once socat is gone; the exit below says why
  stdin.on('error', () => {});

  const closed = new Promise<void>((resolve, reject) => {
    child.once('error', (err) => {
      failure = new StdinRelayError(`cannot run socat for the stdin of ${attachSocketPath}: ${err.message}`, { cause: err });
      reject(failure);
    });
    // 'close' comes after the exit and after stderr is read to its end
    child.once('close', (code, signal) => {
      if (failure) return;
      // socat ends with 143 on the SIGTERM of close()
      if (code === 0 || closing) return resolve();
      const how = code !== null ? `exit status ${code}` : `signal ${signal}`;
      const said = stderr.trim().split('\n').pop()?.replace(/^\S+ \S+ socat\[\d+\] [A-Z] /, '');
      failure = new StdinRelayError(`the stdin relay to ${attachSocketPath} failed (${how})${said ? `: ${said}` : ''}`);
      reject(failure);
    });
  });
  // the caller may never ask; an unheard rejection must not take the daemon down
  closed.catch(() => {});

  return {
    async write(data) {
      if (failure) throw failure;
      if (stdin.destroyed || stdin.writableEnded) throw new StdinRelayError('the stdin relay is closed');
      if (stdin.write(data)) return;
      await new Promise<void>((resolve, reject) => {
        const done = (): void => {
          stdin.off('drain', done);
          stdin.off('close', done);
          if (stdin.destroyed && failure) reject(failure);
          else resolve();
        };
        stdin.on('drain', done);
        stdin.on('close', done);
      });
    },
    end() {
      if (!stdin.writableEnded) stdin.end();
    },
    close() {
      closing = true;
      stdin.destroy();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    },
    closed,
  };
}
