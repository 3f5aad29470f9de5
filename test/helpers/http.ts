// Raw HTTP/1.1 to a daemon, over its unix socket or TCP: status, headers and the whole body.
import http from 'node:http';
import https from 'node:https';

export interface RequestOptions {
  body?: string | Buffer;
  /** a body sent as application/json */
  json?: unknown;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json(): unknown;
}

export type Target = { socketPath: string } | { host: string; port: number; tls?: https.AgentOptions };

export function request(target: Target, method: string, urlPath: string, opts: RequestOptions = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...opts.headers };
    if (opts.json !== undefined) {
      opts = { ...opts, body: JSON.stringify(opts.json) };
      headers['Content-Type'] = 'application/json';
    }
    if (opts.body !== undefined) headers['Content-Length'] = Buffer.byteLength(opts.body);
    const base = { method, path: urlPath, headers, timeout: opts.timeoutMs ?? 10000 };
    const req =
      'socketPath' in target
        ? http.request({ ...base, socketPath: target.socketPath })
        : target.tls
          ? https.request({ ...base, host: target.host, port: target.port, ...target.tls })
          : http.request({ ...base, host: target.host, port: target.port });
    req.on('timeout', () => req.destroy(new Error(`${method} ${urlPath} timed out`)));
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) });
      });
    });
    req.end(opts.body);
  });
}
