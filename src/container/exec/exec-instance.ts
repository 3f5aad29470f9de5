// An exec instance (`docker exec`): a process to run in a running container, created by one call
// and started by another, as dockerd keeps them (daemon/exec/exec.go Config). Instances live in
// memory only, as dockerd's do, and belong to the run of the container they were made in.

export interface ExecConfig {
  cmd: string[];
  /** KEY=value entries over the container's environment */
  env: string[];
  /** '' for the container's own user */
  user: string;
  /** '' for the container's own working directory */
  workingDir: string;
  privileged: boolean;
  tty: boolean;
  attachStdin: boolean;
  attachStdout: boolean;
  attachStderr: boolean;
  /** the keys' bytes, when the request named some */
  detachKeys: Buffer | undefined;
  /** [height, width] of the terminal to start with */
  consoleSize: [number, number] | undefined;
}

export type ExecStatus = 'created' | 'running' | 'exited';

export interface ExecInstance {
  readonly id: string;
  readonly containerId: string;
  /** the StartedAt of the container's run the instance belongs to */
  readonly runStartedAt: string;
  readonly config: ExecConfig;
  status: ExecStatus;
  /** null until the process has ended (or failed to start) */
  exitCode: number | null;
  /** the process's host pid once it runs; 0 before */
  pid: number;
  /** while a terminal exec runs: resizes its pty */
  resize?: (height: number, width: number) => Promise<void>;
}
