// The health monitor of one run of a container, when its configuration has a check: the probe
// is an exec (the exec service's), and the monitor goes on from the health the record keeps (its Log).
import type { ContainerRecord, HealthState } from '../container-record.js';
import { probeCommand } from './health-check.js';
import { HealthMonitor, type HealthProbe } from './health-monitor.js';

/** A run's health checks, while they go on. */
export interface HealthWatch {
  stop(): void;
}

/** Starts the checks of a run whose configuration has them; undefined when it has none. */
export function watchHealth(input: {
  record: ContainerRecord;
  probe: HealthProbe;
  onChange: (state: HealthState, statusChanged: boolean) => void;
}): HealthWatch | undefined {
  const { record } = input;
  const config = record.config.Healthcheck;
  if (config === undefined || probeCommand(config, record.config.Shell) === undefined) return undefined;
  const monitor = new HealthMonitor({
    config,
    shell: record.config.Shell,
    probe: input.probe,
    onChange: input.onChange,
    initial: record.state.health,
    startedAt: new Date(record.state.startedAt),
  });
  monitor.start();
  return {
    stop() {
      void monitor.stop();
    },
  };
}
