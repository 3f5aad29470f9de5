// A connected unix datagram socket (a syslog daemon's /dev/log, a unixgram:// address), which
// node:dgram cannot open, through socat:
//   socat -d -d -d -b 65536 -u STDIN UNIX-CONNECT:<path>,type=2
// socat sends what one read of its stdin gets as one datagram. So that a read gets exactly one
// message, the relay writes the next only once socat has reported the last one sent: its info
// level (-d -d -d) logs an `I transferred N bytes from A to B` line for each transfer (a pipe write
// of up to 64 KiB lands whole), and tells when the socket is connected ("starting data transfer
// loop") or why it could not be ("E connect(...): Connection refused"). (-x would report each
// transfer too, but with a hex dump of its bytes, which made a 60 KiB datagram take 140 ms.) When
// socat can't send (the daemon is gone), it exits, and the relay is closed.
import { spawn } from 'node:child_process';

export interface DatagramRelay {
  /** Queues one datagram; resolves once it is sent, rejects when the relay closed first. */
  send(bytes: Buffer): Promise<void>;
  /** bytes queued and not yet sent */
  queuedBytes(): number;
  /** Ends the relay (socat exits once what is queued is sent). */
  end(): void;
  /** Stops socat at once; what is queued is dropped. */
  kill(): void;
  /** Resolves when socat has gone, with why when it failed. */
  readonly closed: Promise<string | undefined>;
}

/** the largest datagram the relay carries: socat's read size, and a pipe's capacity (a write of up to that lands whole) */
export const MAX_DATAGRAM_BYTES = 65536;

const TRANSFER = / I transferred (\d+) bytes from \d+ to \d+$/;
const CONNECTED = / N starting data transfer loop/;
const FAILED = / E (\w+)\(.*\): (.+)$/;

/** Connects to the socket at `path`; rejects with Go's "dial unixgram <path>: connect: <reason>" when it can't. */
export function openDatagramRelay(path: string, opts: { socatPath?: string } = {}): Promise<DatagramRelay> {
  const child = spawn(opts.socatPath ?? 'socat', ['-d', '-d', '-d', '-b', String(MAX_DATAGRAM_BYTES), '-u', 'STDIN', `UNIX-CONNECT:${path},type=2`], { stdio: ['pipe', 'ignore', 'pipe'] });
  const queue: Array<{ bytes: Buffer; resolve: () => void; reject: (err: Error) => void }> = [];
  let queued = 0;
  let writing = false;
  let ending = false;
  let gone = false;
  let failure: string | undefined;
  // EPIPE once socat is gone; its exit says why
  child.stdin.on('error', () => {});

  const next = () => {
    if (writing || gone) return;
    const head = queue[0];
    if (head === undefined) {
      if (ending) child.stdin.end();
      return;
    }
    writing = true;
    child.stdin.write(head.bytes);
  };

  let connected!: () => void;
  const ready = new Promise<void>((resolve) => (connected = resolve));
  let rest = '';
  child.stderr.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString('latin1')).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (CONNECTED.test(line)) connected();
      const failed = FAILED.exec(line);
      if (failed) failure ??= `${failed[1]}: ${failed[2].charAt(0).toLowerCase()}${failed[2].slice(1)}`;
      if (!TRANSFER.test(line)) continue;
      const sent = queue.shift();
      if (sent === undefined) continue;
      queued -= sent.bytes.length;
      writing = false;
      sent.resolve();
      next();
    }
  });

  const closed = new Promise<string | undefined>((resolve) => {
    child.once('error', (err) => {
      failure ??= err.message;
      gone = true;
      resolve(failure);
    });
    child.once('close', (code) => {
      gone = true;
      for (const q of queue.splice(0)) q.reject(new Error(failure ?? 'the datagram relay ended'));
      queued = 0;
      resolve(code === 0 ? undefined : (failure ?? `socat exited with ${code}`));
    });
  });

  const relay: DatagramRelay = {
    send: (bytes) =>
      new Promise<void>((resolve, reject) => {
        if (gone) return reject(new Error(failure ?? 'the datagram relay ended'));
        queue.push({ bytes, resolve, reject });
        queued += bytes.length;
        next();
      }),
    queuedBytes: () => queued,
    end: () => {
      ending = true;
      next();
    },
    kill: () => {
      if (!gone) child.kill('SIGKILL');
    },
    closed,
  };
  return Promise.race([ready.then(() => relay), closed.then((why) => Promise.reject(new Error(`dial unixgram ${path}: ${why ?? 'socat ended'}`)))]);
}
