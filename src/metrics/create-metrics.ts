// The metrics area, wired: the hooks the other areas report to, made first; what is read from the
// areas, added once they exist; and the listener of --metrics-addr when one is set.
import type { Logger } from 'pino';
import { EngineMetrics, type MetricSources } from './engine-metrics.js';
import { startMetricsServer } from './metrics-server.js';

export function createMetrics(deps: { metricsAddr: string; log: Logger }) {
  const metrics = new EngineMetrics();
  return {
    /** the hooks: container actions, health checks, API requests */
    hooks: metrics,
    /** Adds what is read from the areas and opens the listener; the function returned closes it. */
    async serve(sources: MetricSources): Promise<() => Promise<void>> {
      metrics.readFrom(sources);
      if (deps.metricsAddr === '') return async () => undefined;
      const server = await startMetricsServer(deps.metricsAddr, () => metrics.exposition(), deps.log);
      const unwatch = metrics.watchEventLoop();
      return () => {
        unwatch();
        return server.close();
      };
    },
  };
}
