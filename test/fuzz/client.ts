// Sends one fuzzed request over the daemon's unix socket and reads what comes back, as a client
// that does not wait forever: a stream (logs, events, attach) is read for a moment and then the
// client leaves, as a client that vanishes mid-stream does.
import http from 'node:http';
import type { FuzzRequest } from './request-arbitrary.js';

export interface FuzzResponse {
  status: number;
  contentType: string;
  /** the first bytes of the body */
  body: string;
  /** the client left before the end: a stream, or no head within the time allowed */
  cut: 'no' | 'stream' | 'no-head';
  /** the connection failed (reset, refused) */
  error?: string;
}

const MAX_BODY_BYTES = 64 * 1024;

export function send(socketPath: string, req: FuzzRequest, opts: { headTimeoutMs: number; streamMs: number }): Promise<FuzzResponse> {
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body !== undefined) headers['Content-Length'] = req.body.length;
    let r: http.ClientRequest;
    try {
      r = http.request({ socketPath, method: req.method, path: req.path, headers, agent: false });
    } catch (err) {
      resolve({ status: 0, contentType: '', body: '', cut: 'no', error: `not sent: ${(err as Error).message}` });
      return;
    }
    let done = false;
    const finish = (res: FuzzResponse) => {
      if (done) return;
      done = true;
      clearTimeout(headTimer);
      r.destroy();
      resolve(res);
    };
    const headTimer = setTimeout(() => finish({ status: 0, contentType: '', body: '', cut: 'no-head' }), opts.headTimeoutMs);
    r.on('error', (err) => finish({ status: 0, contentType: '', body: '', cut: 'no', error: err.message }));
    // a route that takes the connection answers 101 to an upgrade; the raw stream is not this client's business
    r.on('upgrade', (res, socket) => {
      socket.destroy();
      finish({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: '', cut: 'stream' });
    });
    r.on('response', (res) => {
      clearTimeout(headTimer);
      const chunks: Buffer[] = [];
      let size = 0;
      const result = (cut: FuzzResponse['cut']): FuzzResponse => ({
        status: res.statusCode ?? 0,
        contentType: String(res.headers['content-type'] ?? ''),
        body: Buffer.concat(chunks).toString('utf8'),
        cut,
      });
      const streamTimer = setTimeout(() => finish(result('stream')), opts.streamMs);
      res.on('data', (c: Buffer) => {
        if (size < MAX_BODY_BYTES) chunks.push(c);
        size += c.length;
      });
      res.on('error', () => finish(result('stream')));
      res.on('end', () => {
        clearTimeout(streamTimer);
        finish(result('no'));
      });
    });
    r.end(req.body);
  });
}
