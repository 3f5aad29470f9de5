// Newline-delimited JSON out of one response: the head is flushed at once, each record goes out
// in one write(), and the producer waits for 'drain' whenever the socket's buffer is full.
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';

export class NdjsonWriter {
  private readonly res: ServerResponse;
  private readonly signal: AbortSignal;
  private readonly lineEnd: string;

  /** `lineEnd`: dockerd ends its progress messages with \r\n (streamformatter), other streams with \n. */
  constructor(res: ServerResponse, signal: AbortSignal, lineEnd = '\n') {
    this.res = res;
    this.signal = signal;
    this.lineEnd = lineEnd;
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.flushHeaders();
  }

  /** Sends one record, encoded as a line of JSON. Rejects with an AbortError once the client has gone away. */
  async writeLine(json: string): Promise<void> {
    this.signal.throwIfAborted();
    if (!this.res.write(json + this.lineEnd)) {
      await once(this.res, 'drain', { signal: this.signal });
    }
  }

  /** Ends the response; nothing once the client has gone (an end then would mark the answer finished, and its error a bug). */
  end(): void {
    if (!this.res.destroyed) this.res.end();
  }
}
