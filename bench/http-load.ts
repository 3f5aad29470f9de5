// HTTP load on one URL with autocannon, run by the published-port figure with node inside an
// engine's network namespace (nodeIn): waits until the URL answers 200, then measures. The server
// there (busybox httpd) closes every connection after its response, so each request is a new
// connection, which autocannon opens again at once. Prints the requests per second as JSON; any
// error, timeout or non-2xx answer fails the run, since a rate of failures says nothing.
import autocannon from 'autocannon';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { readInput } from './netns.js';

export interface HttpLoadInput {
  url: string;
  connections: number;
  durationS: number;
  warmupS: number;
  /** how long the server has to answer its first request */
  readyTimeoutMs: number;
}

export interface HttpLoadResult {
  requestsPerS: number;
  requests: number;
}

async function main(): Promise<void> {
  const input = await readInput<HttpLoadInput>();
  await waitReady(input.url, input.readyTimeoutMs);
  const result = await autocannon({ url: input.url, connections: input.connections, duration: input.durationS, warmup: { duration: input.warmupS } });
  const failures = result.errors + result.timeouts + result.non2xx;
  if (failures > 0) throw new Error(`GET ${input.url}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx responses`);
  const output: HttpLoadResult = { requestsPerS: result.requests.average, requests: result.requests.total };
  process.stdout.write(JSON.stringify(output));
}

async function waitReady(url: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const status = await new Promise<number | string>((resolve) => {
      const req = http.get(url, { agent: false, timeout: 1000 }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', (err) => resolve(err.message));
    });
    if (status === 200) return;
    if (Date.now() > until) throw new Error(`GET ${url} did not answer 200 within ${timeoutMs} ms (last: ${status})`);
    await sleep(50);
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
