// What a handler gets for one request: its API version, path parameters, query, body and a
// signal that fires when the client goes away. Handlers throw EngineErrors; they never pick a status.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { invalidParameter } from '../errors.js';
import type { ApiVersion } from './api-version.js';
import type { HijackRegistry } from './hijack.js';
import { NdjsonWriter } from './streams/ndjson-writer.js';

const MAX_JSON_BODY_BYTES = 16 * 1024 * 1024;

export class RequestContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly api: ApiVersion;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** Where a route that takes over the connection registers it, so shutdown can cut it. */
  readonly hijacks: HijackRegistry;
  private readonly shutdown: AbortSignal;
  private controller: AbortController | undefined;

  constructor(opts: {
    req: IncomingMessage;
    res: ServerResponse;
    api: ApiVersion;
    params: Record<string, string>;
    query: URLSearchParams;
    /** Fires when the daemon stops. */
    shutdown: AbortSignal;
    hijacks: HijackRegistry;
  }) {
    this.req = opts.req;
    this.res = opts.res;
    this.api = opts.api;
    this.params = opts.params;
    this.query = opts.query;
    this.shutdown = opts.shutdown;
    this.hijacks = opts.hijacks;
  }

  /**
   * Fires when the client leaves before the response is complete, or the daemon stops. Made on
   * first use: most requests never ask, and an abort per request is costly (an AbortError each).
   */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      const controller = new AbortController();
      this.controller = controller;
      const abort = () => controller.abort();
      if (this.shutdown.aborted) abort();
      else this.shutdown.addEventListener('abort', abort, { once: true });
      this.res.once('close', () => {
        this.shutdown.removeEventListener('abort', abort);
        if (!this.res.writableFinished) abort();
      });
    }
    return this.controller.signal;
  }

  /** Reads the body as JSON as dockerd does: an empty body is `undefined`; only application/json is accepted. */
  async readJson(): Promise<unknown> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of this.req) {
      size += (chunk as Buffer).length;
      if (size > MAX_JSON_BODY_BYTES) throw invalidParameter(`request body exceeds ${MAX_JSON_BODY_BYTES} bytes`);
      chunks.push(chunk as Buffer);
    }
    if (size === 0) return undefined;
    const contentType = this.req.headers['content-type'];
    if (contentType !== undefined && !/^application\/json\s*(;|$)/i.test(contentType)) {
      throw invalidParameter(`Content-Type specified (${contentType}) must be 'application/json'`);
    }
    try {
      return JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch (err) {
      throw invalidParameter(`invalid JSON body: ${(err as Error).message}`, err);
    }
  }

  json(body: unknown, status = 200): void {
    const text = JSON.stringify(body) + '\n';
    this.res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
    this.res.end(this.req.method === 'HEAD' ? undefined : text);
  }

  text(body: string, status = 200): void {
    this.res.writeHead(status, {
      'Content-Type': 'text/plain; charset=utf-8',
      'Content-Length': this.req.method === 'HEAD' ? 0 : Buffer.byteLength(body),
    });
    this.res.end(this.req.method === 'HEAD' ? undefined : body);
  }

  /** Starts a newline-delimited JSON stream: the head goes out now, so validate before calling. */
  ndjson(): NdjsonWriter {
    return new NdjsonWriter(this.res, this.signal);
  }
}
