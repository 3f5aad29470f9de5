// Docker's JSON progress messages (jsonmessage) out of one response, one object per line ended by
// \r\n and with <, > and & escaped, as dockerd's streamformatter writes them, for load, import,
// pull, push and build. The head goes out at once, or with the first message when the route wants
// failures up to then to be status codes. Once it is out, a failure can only be written in-band,
// as dockerd writes it.
import type { ServerResponse } from 'node:http';
import type { ProgressSink } from '../../lib/stream-session.js';
import { NdjsonWriter } from './ndjson-writer.js';

export class ProgressWriter implements ProgressSink {
  private readonly res: ServerResponse;
  private readonly signal: AbortSignal;
  private out: NdjsonWriter | undefined;

  constructor(res: ServerResponse, signal: AbortSignal, opts: { headAtOnce: boolean }) {
    this.res = res;
    this.signal = signal;
    if (opts.headAtOnce) this.head();
  }

  /** Whether the 200 is out: from then on a failure goes in-band. */
  get headSent(): boolean {
    return this.out !== undefined;
  }

  stream(text: string): Promise<void> {
    return this.send({ stream: text });
  }

  status(text: string, id?: string): Promise<void> {
    return this.send(id === undefined ? { status: text } : { status: text, id });
  }

  progress(id: string, action: string, currentBytes: number, totalBytes?: number): Promise<void> {
    // the fields in jsonmessage's order, and without the ones Go's omitempty drops
    const detail = { ...(currentBytes > 0 ? { current: currentBytes } : {}), ...(totalBytes !== undefined && totalBytes > 0 ? { total: totalBytes } : {}) };
    const bar = progressText(currentBytes, totalBytes ?? 0);
    return this.send({ status: action, progressDetail: detail, ...(bar !== '' ? { progress: bar } : {}), id });
  }

  aux(value: unknown): Promise<void> {
    return this.send({ aux: value });
  }

  /** dockerd's in-band failure: the message twice, as errorDetail and as the deprecated error. */
  /** A failure in-band; `code` is a failed build step's exit code (jsonmessage.JSONError's). */
  error(message: string, code?: number): Promise<void> {
    return this.send({ errorDetail: code === undefined ? { message } : { code, message }, error: message });
  }

  /** Ends the response, sending the head first if no message did. */
  end(): void {
    this.head().end();
  }

  private head(): NdjsonWriter {
    return (this.out ??= new NdjsonWriter(this.res, this.signal, '\r\n'));
  }

  private send(message: object): Promise<void> {
    this.signal.throwIfAborted();
    return this.head().writeLine(goJsonText(JSON.stringify(message)));
  }
}

/**
 * The `progress` text dockerd renders (JSONProgress.String) for a daemon without a terminal,
 * which it takes as 200 columns wide: a 50-step bar, then the sizes. It never has a start time,
 * so it shows no time left.
 */
function progressText(current: number, total: number): string {
  if (current <= 0 && total <= 0) return '';
  if (total <= 0) return humanSize(current).padStart(8);
  const steps = Math.min(Math.trunc(Math.trunc((current / total) * 100) / 2), 50);
  const bar = `[${'='.repeat(steps)}>${' '.repeat(50 - steps)}] `;
  return bar + (current > total ? humanSize(current).padStart(8) : `${humanSize(current).padStart(8)}/${humanSize(total)}`);
}

const UNITS = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB', 'YB'];

/** go-units HumanSize: decimal units, four significant digits, no trailing zeros ("1.08kB", "512B"). */
function humanSize(bytes: number): string {
  let size = bytes;
  let unit = 0;
  while (size >= 1000 && unit < UNITS.length - 1) {
    size /= 1000;
    unit++;
  }
  return `${Number(size.toPrecision(4))}${UNITS[unit]}`;
}

/** Go's json.Marshal escapes HTML's special characters and the JavaScript line separators. */
function goJsonText(json: string): string {
  return json.replace(/[<>&\u2028\u2029]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
