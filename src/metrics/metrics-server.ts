// The metrics listener (dockerd's --metrics-addr): GET /metrics in Prometheus' text format on a
// TCP address of its own, apart from the API's sockets. It serves nothing else.
import http from 'node:http';
import type { Logger } from 'pino';
import { EXPOSITION_CONTENT_TYPE } from './exposition.js';

export class MetricsAddressError extends Error {
  constructor(addr: string) {
    super(`invalid metrics-addr "${addr}": expected host:port`);
    this.name = 'MetricsAddressError';
  }
}

/** `127.0.0.1:9323`, `[::1]:9323`, `:9323` (every address, as Go's net.Listen). */
export function parseMetricsAddress(addr: string): { host: string | undefined; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d+)$/.exec(addr);
  const port = m ? Number(m[3]) : NaN;
  if (!m || !Number.isInteger(port) || port > 65535) throw new MetricsAddressError(addr);
  const host = m[1] ?? m[2];
  return { host: host === '' ? undefined : host, port };
}

export async function startMetricsServer(addr: string, exposition: () => string, log: Logger): Promise<{ close(): Promise<void> }> {
  const { host, port } = parseMetricsAddress(addr);
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('404 page not found\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
      return;
    }
    const body = exposition();
    res.writeHead(200, { 'Content-Type': EXPOSITION_CONTENT_TYPE, 'Content-Length': Buffer.byteLength(body) });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address();
  log.info({ address: addr }, 'metrics API listening on %s', typeof bound === 'object' && bound !== null ? `${bound.address}:${bound.port}` : addr);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
