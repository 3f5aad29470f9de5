// One HTTP request from inside a network namespace (run there with nsenter by test/helpers/registry.ts),
// so the tests can reach the registries and servers they start beside berthd without a route from
// the test's own namespace. The body comes on stdin; the answer goes to stdout as one JSON line
// (status, headers, body in base64).
// Usage: node fetch.js '{"method":"GET","url":"http://127.0.0.1:5000/v2/","headers":{},"ca":"/path/ca.pem"}' < body
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';

interface Spec {
  method: string;
  url: string;
  headers?: Record<string, string>;
  ca?: string;
}

const spec = JSON.parse(process.argv[2]) as Spec;
const chunks: Buffer[] = [];
for await (const c of process.stdin) chunks.push(c as Buffer);
const body = Buffer.concat(chunks);
const url = new URL(spec.url);
const headers: Record<string, string | number> = { ...spec.headers };
if (body.length > 0 || ['PUT', 'POST', 'PATCH'].includes(spec.method)) headers['Content-Length'] = body.length;
const opts = { method: spec.method, headers, timeout: 30_000 };
const req = url.protocol === 'https:' ? https.request(url, { ...opts, ca: spec.ca ? readFileSync(spec.ca) : undefined }) : http.request(url, opts);
req.on('timeout', () => req.destroy(new Error(`${spec.method} ${spec.url} timed out`)));
req.on('error', (err) => {
  process.stdout.write(`${JSON.stringify({ error: String(err) })}\n`);
});
req.on('response', (res) => {
  const out: Buffer[] = [];
  res.on('data', (c: Buffer) => out.push(c));
  res.on('end', () => {
    process.stdout.write(`${JSON.stringify({ status: res.statusCode, headers: res.headers, body: Buffer.concat(out).toString('base64') })}\n`);
  });
  res.on('error', (err) => process.stdout.write(`${JSON.stringify({ error: String(err) })}\n`));
});
req.end(body);
