// An exec instance as GET /exec/{id}/json shows it (dockerd 20.10's ExecInspect, field for field).
import type { ExecInstance } from '../../../container/exec/exec-instance.js';

export function toExecInspect(e: ExecInstance): Record<string, unknown> {
  const { config } = e;
  return {
    ID: e.id,
    Running: e.status === 'running',
    ExitCode: e.exitCode,
    ProcessConfig: {
      tty: config.tty,
      entrypoint: config.cmd[0],
      arguments: config.cmd.slice(1),
      privileged: config.privileged,
      ...(config.user !== '' ? { user: config.user } : {}),
    },
    OpenStdin: config.attachStdin,
    OpenStderr: config.attachStderr,
    OpenStdout: config.attachStdout,
    CanRemove: false,
    ContainerID: e.containerId,
    // a Go []byte: base64 in JSON
    DetachKeys: config.detachKeys?.toString('base64') ?? '',
    Pid: e.pid,
  };
}
