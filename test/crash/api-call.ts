// One request of the workload to berthd's socket, and how it ended: acknowledged (a 2xx answer
// received whole and, for a progress stream, finished without an error in it), failed (an error
// status or an error in the stream), refused (it never reached the daemon: nothing happened), cut
// (the connection broke before the whole answer: in flight when the daemon was killed) or hung.
// A fresh connection each time (no agent), so no request rides a socket of a daemon since killed.
import http from 'node:http';

export type Outcome =
  | { kind: 'ack'; status: number; body: Buffer }
  | { kind: 'failed'; status: number; body: Buffer; message: string }
  | { kind: 'refused'; error: string }
  | { kind: 'cut'; error: string }
  | { kind: 'hung'; error: string };

export interface CallOptions {
  json?: unknown;
  body?: Buffer;
  headers?: Record<string, string>;
  /** 'progress': an NDJSON stream whose records may carry an error (load, pull, build) */
  stream?: 'progress';
  timeoutMs?: number;
}

/** Errors of a connection that was never made: the daemon was not listening. */
const NOT_REACHED = new Set(['ECONNREFUSED', 'ENOENT']);

export function call(socketPath: string, method: string, urlPath: string, opts: CallOptions = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { ...opts.headers };
    let body = opts.body;
    if (opts.json !== undefined) {
      body = Buffer.from(JSON.stringify(opts.json));
      headers['Content-Type'] = 'application/json';
    }
    if (body !== undefined) headers['Content-Length'] = body.length;
    let settled = false;
    const settle = (o: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(o);
    };
    const req = http.request({ socketPath, method, path: urlPath, headers, agent: false });
    const timer = setTimeout(() => {
      settle({ kind: 'hung', error: `no whole answer in ${opts.timeoutMs ?? 180_000} ms` });
      req.destroy();
    }, opts.timeoutMs ?? 180_000);
    req.on('error', (err: NodeJS.ErrnoException) => {
      settle(NOT_REACHED.has(err.code ?? '') ? { kind: 'refused', error: err.message } : { kind: 'cut', error: `${err.code ?? ''} ${err.message}` });
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (err: NodeJS.ErrnoException) => settle({ kind: 'cut', error: `${err.code ?? ''} ${err.message}` }));
      res.on('end', () => {
        if (!res.complete) return settle({ kind: 'cut', error: 'the answer ended early' });
        const status = res.statusCode ?? 0;
        const all = Buffer.concat(chunks);
        if (status < 200 || status >= 300) return settle({ kind: 'failed', status, body: all, message: errorMessage(all) });
        if (opts.stream === 'progress') {
          const error = streamError(all);
          if (error !== undefined) return settle({ kind: 'failed', status, body: all, message: error });
        }
        settle({ kind: 'ack', status, body: all });
      });
    });
    req.end(body);
  });
}

function errorMessage(body: Buffer): string {
  try {
    return String((JSON.parse(body.toString('utf8')) as { message?: unknown }).message);
  } catch {
    return body.toString('utf8').slice(0, 300);
  }
}

/** The first error a progress stream carried, or undefined; a stream that is not whole JSON lines counts as one. */
function streamError(body: Buffer): string | undefined {
  for (const line of body.toString('utf8').split('\n')) {
    if (line.trim() === '') continue;
    let record: { error?: unknown; errorDetail?: { message?: unknown } };
    try {
      record = JSON.parse(line) as typeof record;
    } catch {
      return `not a JSON line: ${line.slice(0, 200)}`;
    }
    if (record.errorDetail !== undefined || record.error !== undefined) return String(record.errorDetail?.message ?? record.error);
  }
  return undefined;
}

/** A JSON answer the harness itself needs (its checks): throws unless it is a whole 2xx. */
export async function getJson<T>(socketPath: string, urlPath: string): Promise<T> {
  const o = await call(socketPath, 'GET', urlPath, { timeoutMs: 60_000 });
  if (o.kind !== 'ack') throw new Error(`GET ${urlPath}: ${describe(o)}`);
  return JSON.parse(o.body.toString('utf8')) as T;
}

export function describe(o: Outcome): string {
  switch (o.kind) {
    case 'ack':
      return `${o.status}`;
    case 'failed':
      return `${o.status} ${o.message}`;
    default:
      return `${o.kind}: ${o.error}`;
  }
}
