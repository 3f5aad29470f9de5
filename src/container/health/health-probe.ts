// The health probe of a container run by runc: the command runs as dockerd runs a health check
// (v20.10.27 daemon/health.go cmdProbe), in the container with the container's environment (no
// TERM: no terminal), user and working directory, without stdin, its stdout and stderr together
// in one buffer of at most 4096 bytes. An abort kills it (and its process group) in the container.
import { execProcess } from '../../runtime/exec-process.js';
import type { Runc } from '../../runtime/runc.js';
import { LimitedOutput } from './health-check.js';
import type { HealthProbe } from './health-monitor.js';

export function makeHealthProbe(runc: Runc, containerId: string): HealthProbe {
  return async (cmd, timeoutMs, signal) => {
    const spec = await runc.containerSpec(containerId);
    const output = new LimitedOutput();
    const r = await runc.exec(containerId, execProcess(spec, { args: cmd }), { onOutput: (chunk) => output.write(chunk), timeoutMs, signal });
    return { exitCode: r.exitCode, output: output.toString() };
  };
}
