// The health monitor of one run of a container, when its configuration has a check: the probe
// runs on runc exec, and the monitor goes on from the health the record keeps (its Log).
import type { Runc } from '../../runtime/runc.js';
import type { ContainerRecord, HealthState } from '../container-record.js';
import { probeCommand } from './health-check.js';
import { HealthMonitor } from './health-monitor.js';
import { makeHealthProbe } from './health-probe.js';

export function watchHealth(input: {
  record: ContainerRecord;
  runc: Runc;
  onChange: (state: HealthState, statusChanged: boolean) => void;
}): { stop(): void } | undefined {
  const { record } = input;
  const config = record.config.Healthcheck;
  if (config === undefined || probeCommand(config, record.config.Shell) === undefined) return undefined;
  const monitor = new HealthMonitor({
    config,
    shell: record.config.Shell,
    probe: makeHealthProbe(input.runc, record.id),
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
