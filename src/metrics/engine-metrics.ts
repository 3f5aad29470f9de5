// The daemon's metrics, named as dockerd names them (moby daemon/metrics.go, daemon/events/metrics.go,
// all in the engine_daemon namespace), and berth's own per-endpoint request counts and durations.
// The areas get narrow hooks (a timer per container action, a count per health check, one per API
// request); what is a state is read from the areas when scraped.
import { Counter, Histogram, MetricsRegistry, ScrapedMetric } from './metrics-registry.js';
import { formatExposition } from './exposition.js';
import { EVENT_LOOP_BUCKETS, EventLoopDelay } from './event-loop-delay.js';

/** The container actions dockerd times (its series exist from the start). */
export const CONTAINER_ACTIONS = ['changes', 'commit', 'create', 'delete', 'start'] as const;
export type ContainerAction = (typeof CONTAINER_ACTIONS)[number];

export interface EngineInfo {
  version: string;
  commit: string;
  architecture: string;
  graphdriver: string;
  kernel: string;
  os: string;
  osType: string;
  osVersion: string;
  daemonId: string;
  cpus: number;
  memoryBytes: number;
}

/** What is read from the areas when scraped. */
export interface MetricSources {
  engine: EngineInfo;
  containerStates(): { running: number; paused: number; stopped: number };
  eventsPublished(): number;
  eventSubscribers(): number;
}

export class EngineMetrics {
  private readonly registry = new MetricsRegistry();
  private readonly containerActions = this.registry.add(new Histogram('engine_daemon_container_actions_seconds', 'The number of seconds it takes to process each container action'));
  private readonly healthChecks = this.registry.add(new Counter('engine_daemon_health_checks_total', 'The total number of health checks'));
  private readonly healthChecksFailed = this.registry.add(new Counter('engine_daemon_health_checks_failed_total', 'The total number of failed health checks'));
  private readonly apiRequests = this.registry.add(new Counter('engine_daemon_api_requests_total', 'The number of API requests answered, by operation, method and status code', true));
  private readonly apiDurations = this.registry.add(new Histogram('engine_daemon_api_request_duration_seconds', 'The number of seconds it takes to answer an API request, by operation and method'));
  // dockerd has none: berth's own name
  private readonly eventLoopDelays = this.registry.add(new Histogram('berth_event_loop_delay_seconds', 'How late the daemon\'s event loop ran a timer due every 10 ms, in seconds', EVENT_LOOP_BUCKETS));
  private eventLoop?: EventLoopDelay;

  constructor() {
    for (const action of CONTAINER_ACTIONS) this.containerActions.declare({ action });
  }

  /** Adds the metrics read from the areas; called once they exist. */
  readFrom(sources: MetricSources): void {
    const e = sources.engine;
    const info = { architecture: e.architecture, commit: e.commit, daemon_id: e.daemonId, graphdriver: e.graphdriver, kernel: e.kernel, os: e.os, os_type: e.osType, os_version: e.osVersion, version: e.version };
    this.registry.add(new ScrapedMetric('gauge', 'engine_daemon_engine_info', 'The information related to the engine and the OS it is running on', () => [{ labels: info, value: 1 }]));
    this.registry.add(new ScrapedMetric('gauge', 'engine_daemon_engine_cpus_cpus', 'The number of cpus that the host system of the engine has', () => [{ labels: {}, value: e.cpus }]));
    this.registry.add(new ScrapedMetric('gauge', 'engine_daemon_engine_memory_bytes', 'The number of bytes of memory that the host system of the engine has', () => [{ labels: {}, value: e.memoryBytes }]));
    this.registry.add(
      new ScrapedMetric('gauge', 'engine_daemon_container_states_containers', 'The count of containers in various states', () => {
        const c = sources.containerStates();
        return (['paused', 'running', 'stopped'] as const).map((state) => ({ labels: { state }, value: c[state] }));
      }),
    );
    this.registry.add(new ScrapedMetric('gauge', 'engine_daemon_events_subscribers_total', 'The number of current subscribers to events', () => [{ labels: {}, value: sources.eventSubscribers() }]));
    this.registry.add(new ScrapedMetric('counter', 'engine_daemon_events_total', 'The number of events logged', () => [{ labels: {}, value: sources.eventsPublished() }]));
  }

  /** Times one container action; the function returned ends the timing (only a success should call it, as in dockerd). */
  timeContainerAction(action: ContainerAction): () => void {
    return this.containerActions.startTimer({ action });
  }

  /** One health check run; failed when the probe could not run or was cut by its timeout. */
  healthCheck(failed: boolean): void {
    this.healthChecks.inc();
    if (failed) this.healthChecksFailed.inc();
  }

  apiRequest(r: { operation: string; method: string; status: number; seconds: number }): void {
    this.apiRequests.inc({ operation: r.operation, method: r.method, code: String(r.status) });
    this.apiDurations.observe({ operation: r.operation, method: r.method }, r.seconds);
  }

  /** Starts measuring the event loop's delay (while the metrics are served); the function returned stops it. */
  watchEventLoop(): () => void {
    const watch = new EventLoopDelay(this.eventLoopDelays);
    this.eventLoop = watch;
    return () => {
      watch.stop();
      if (this.eventLoop === watch) this.eventLoop = undefined;
    };
  }

  exposition(): string {
    this.eventLoop?.fold();
    return formatExposition(this.registry.gather());
  }
}
