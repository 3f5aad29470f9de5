// A proxy in front of a registry for the failure tests, run in berthd's network namespace: it
// forwards every request (the Host header kept, so the registry's Location headers name the
// proxy) and misbehaves on blob GETs as its state file says, read at each request so a test can
// change it while it runs:
//   pass        forward as is
//   blob-500    answer 500 to blob GETs
//   blob-close  forward the blob's head and `closeAfterBytes` of its body (half by default), then close
//   slow        forward blob bodies at `bytesPerSecond`
//   delay       hold each blob GET `delayMs` before forwarding it
//   redirect    answer blob GETs with a 307 to the registry itself (as registries on object storage do)
// When the registry's answer breaks off (the registry was stopped), the client's connection is
// closed at once. Prints {"port":N} once listening, then one JSON line per request and, on blob
// bodies, {"blob":path,"bytes":N} about every 256 KiB.
// Usage: node faulty-proxy.js <target host:port> <state.json>
import { readFileSync } from 'node:fs';
import http from 'node:http';

interface ProxyState {
  mode: 'pass' | 'blob-500' | 'blob-close' | 'slow' | 'delay' | 'redirect';
  closeAfterBytes?: number;
  bytesPerSecond?: number;
  delayMs?: number;
}

const [target, stateFile] = process.argv.slice(2);
const [targetHost, targetPort] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
const state = (): ProxyState => JSON.parse(readFileSync(stateFile, 'utf8')) as ProxyState;
const log = (entry: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(entry)}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const server = http.createServer((req, res) => {
  void handle(req, res).catch((err: unknown) => {
    log({ method: req.method, path: req.url, error: String(err) });
    res.destroy();
  });
});

async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const s = state();
  const path = req.url ?? '/';
  const isBlobGet = req.method === 'GET' && /\/blobs\/sha256:[0-9a-f]{64}(\?|$)/.test(path);
  if (isBlobGet && s.mode === 'blob-500') {
    log({ method: req.method, path, status: 500, mode: s.mode });
    req.resume();
    res.writeHead(500, { 'Content-Type': 'text/plain' });
    res.end('internal server error (faulty proxy)\n');
    return;
  }
  if (isBlobGet && s.mode === 'redirect') {
    log({ method: req.method, path, status: 307, mode: s.mode });
    req.resume();
    res.writeHead(307, { Location: `http://${target}${path}` });
    res.end();
    return;
  }
  if (isBlobGet && s.mode === 'delay') await sleep(s.delayMs ?? 1000);
  const upstream = http.request({ host: targetHost, port: targetPort, method: req.method, path, headers: req.headers });
  upstream.on('error', (err) => {
    log({ method: req.method, path, upstreamError: String(err) });
    if (!res.headersSent) {
      res.writeHead(502, { 'Content-Type': 'text/plain' });
      res.end(`bad gateway: ${String(err)}\n`);
    } else {
      res.destroy();
    }
  });
  upstream.on('response', (up) => {
    log({ method: req.method, path, status: up.statusCode, mode: s.mode });
    res.writeHead(up.statusCode ?? 502, up.headers);
    if (!isBlobGet || s.mode === 'pass' || s.mode === 'delay') {
      up.pipe(res);
      up.on('aborted', () => res.destroy());
      up.on('error', () => res.destroy());
      return;
    }
    const total = Number(up.headers['content-length'] ?? 0);
    const limit = s.mode === 'blob-close' ? (s.closeAfterBytes ?? Math.floor(total / 2)) : Infinity;
    let sent = 0;
    let reported = 0;
    const broken = () => {
      log({ blob: path, bytes: sent, broken: true });
      res.destroy();
    };
    up.on('aborted', broken);
    up.on('error', broken);
    up.on('data', (chunk: Buffer) => {
      if (res.destroyed) return;
      const part = sent + chunk.length > limit ? chunk.subarray(0, limit - sent) : chunk;
      res.write(part);
      sent += part.length;
      if (sent - reported >= 256 * 1024) {
        reported = sent;
        log({ blob: path, bytes: sent });
      }
      if (sent >= limit) {
        log({ blob: path, bytes: sent, closed: true });
        up.destroy();
        // the bytes written reach the client before the connection goes
        res.socket?.end(() => res.destroy());
        return;
      }
      if (s.mode === 'slow') {
        up.pause();
        setTimeout(() => up.resume(), (chunk.length / (s.bytesPerSecond ?? 1_000_000)) * 1000);
      }
    });
    up.on('end', () => {
      if (!res.destroyed) res.end();
    });
  });
  req.pipe(upstream);
}

server.listen(0, '127.0.0.1', () => {
  log({ port: (server.address() as { port: number }).port });
});
