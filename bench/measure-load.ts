// Load on one endpoint over a unix socket with autocannon. Latency percentiles are computed here from
// each response's time: autocannon's own histogram keeps whole milliseconds, too coarse for /_ping.
import autocannon from 'autocannon';
import { percentile } from './median.js';

export interface LoadOptions {
  connections: number;
  durationS: number;
  warmupS: number;
}

export interface LoadResult {
  requestsPerS: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
}

export async function measureLoad(socketPath: string, urlPath: string, opts: LoadOptions): Promise<LoadResult> {
  const latenciesMs: number[] = [];
  const run = autocannon({
    url: `http://localhost${urlPath}`,
    socketPath,
    connections: opts.connections,
    duration: opts.durationS,
    warmup: { duration: opts.warmupS },
  });
  run.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
    if (statusCode >= 200 && statusCode < 300) latenciesMs.push(responseTimeMs);
  });
  const result = await run;
  const failures = result.errors + result.timeouts + result.non2xx;
  // Throughput of failing requests says nothing about the engine.
  if (failures > 0) {
    throw new Error(`GET ${urlPath} on ${socketPath}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx responses`);
  }
  return {
    requestsPerS: result.requests.average,
    latencyP50Ms: percentile(latenciesMs, 50),
    latencyP99Ms: percentile(latenciesMs, 99),
  };
}
