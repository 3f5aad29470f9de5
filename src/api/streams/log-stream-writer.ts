// Service and task logs on the wire, as dockerd 20.10's WriteLogStream writes them
// (api/server/httputils/write_log_stream.go): each message in a frame of its own, since the CLI's
// `service logs` reads a frame as one line; `[<time> ][<details> ]<line>`, the time in
// RFC3339NanoFixed under timestamps, the details under details (the attributes sorted by key, key
// and value each url.QueryEscape'd, `k=v` joined by commas), then the line as the container wrote
// it. An error once the stream has begun is `Error grabbing logs: <message>\n` on stdcopy's
// system-error stream; under a TTY everything goes raw, the error too.
import { formatRfc3339NanoFixed } from '../../lib/timestamp.js';
import type { MuxWriter, OutputStream } from './mux-writer.js';

export interface LogStreamMessage {
  stream: OutputStream;
  timeNs: bigint;
  attrs: Readonly<Record<string, string>>;
  data: Buffer;
}

export interface LogStreamOptions {
  details: boolean;
  timestamps: boolean;
}

export class LogStreamWriter {
  constructor(
    private readonly out: MuxWriter,
    private readonly opts: LogStreamOptions,
  ) {}

  write(msg: LogStreamMessage): Promise<void> {
    return this.out.write(msg.stream, logLine(msg, this.opts));
  }

  error(message: string): Promise<void> {
    return this.out.write('systemerr', Buffer.from(`Error grabbing logs: ${message}\n`));
  }
}

/** One message's bytes as the frame carries them. */
export function logLine(msg: LogStreamMessage, opts: LogStreamOptions): Buffer {
  const prefix = `${opts.timestamps ? `${formatRfc3339NanoFixed(msg.timeNs)} ` : ''}${opts.details ? `${details(msg.attrs)} ` : ''}`;
  return prefix === '' ? msg.data : Buffer.concat([Buffer.from(prefix), msg.data]);
}

function details(attrs: Readonly<Record<string, string>>): string {
  return Object.keys(attrs)
    .sort()
    .map((k) => `${queryEscape(k)}=${queryEscape(attrs[k]!)}`)
    .join(',');
}

/** Go's url.QueryEscape: bytes outside [A-Za-z0-9-_.~] as %XX, a space as +. */
export function queryEscape(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    if (byte === 0x20) out += '+';
    else if (UNRESERVED.test(String.fromCharCode(byte))) out += String.fromCharCode(byte);
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const UNRESERVED = /^[A-Za-z0-9\-_.~]$/;
