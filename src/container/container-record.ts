// A container as berth records it: its configuration as Docker's own shapes (kept as dockerd keeps
// them, and shown back by inspect), and its state as one status with the facts of the last run.
import type { ContainerConfig, HostConfig, NetworkingConfig } from './config/types.js';
import type { HealthState } from './health/health-check.js';
import type { MountPoint } from './spec/resolve-mounts.js';
import type { TaskFileMount } from './task-files.js';

export type { HealthLogEntry, HealthState } from './health/health-check.js';

export type { MountPoint } from './spec/resolve-mounts.js';

/** One status, as dockerd's State.StateString(); Docker's booleans are derived from it. */
export type ContainerStatus = 'created' | 'running' | 'paused' | 'restarting' | 'removing' | 'exited' | 'dead';

/** Which statuses an operation may move a container between (anything else is a bug). */
const TRANSITIONS: Record<ContainerStatus, readonly ContainerStatus[]> = {
  created: ['running', 'removing', 'exited', 'created'],
  running: ['paused', 'exited', 'removing', 'restarting'],
  paused: ['running', 'exited', 'removing'],
  restarting: ['running', 'exited', 'removing', 'restarting'],
  exited: ['running', 'removing', 'restarting', 'exited'],
  removing: ['dead'],
  dead: ['removing'],
};

export function canMove(from: ContainerStatus, to: ContainerStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export interface ContainerState {
  status: ContainerStatus;
  /** the container's first process, while it runs */
  pid: number;
  /** conmon watching the current run */
  conmonPid: number;
  exitCode: number;
  error: string;
  /** RFC 3339 with nanoseconds; dockerd's zero time until it happens */
  startedAt: string;
  finishedAt: string;
  oomKilled: boolean;
  /** a user stopped (or killed) it: restart policies leave it alone */
  stoppedByUser: boolean;
  /** it ran at least once (Docker's HasBeenStartedBefore: unless-stopped and `docker start` rules) */
  hasBeenStarted: boolean;
  /** paused by a commit, not by a user: a daemon killed before the commit's unpause has it resumed at its next start */
  pausedForCommit?: boolean;
  health?: HealthState;
}

/**
 * What a Config.Env entry without "=" does to the process's environment (the seed's version
 * difference): unset the variable (API 1.40 on), or set it empty (before). Config.Env keeps the
 * entry as the client sent it either way.
 */
export type BareEnv = 'unset' | 'empty';

export interface ContainerRecord {
  id: string;
  /** with its leading slash, as dockerd keeps names */
  name: string;
  created: string;
  /** the process that runs: Entrypoint's first word, or Cmd's */
  path: string;
  args: string[];
  /** the image's ID */
  image: string;
  config: ContainerConfig;
  hostConfig: HostConfig;
  networkingConfig: NetworkingConfig;
  mountPoints: MountPoint[];
  /** absent in records made before it was kept: those had their entries rewritten already */
  bareEnv?: BareEnv;
  /** a swarm task's secrets and configs, bind-mounted read-only at their targets (dockerd's SecretReferences and ConfigReferences) */
  taskFiles?: TaskFileMount[];
  restartCount: number;
  state: ContainerState;
}

/** dockerd's zero time, as inspect shows it for what has not happened. */
export const ZERO_TIME = '0001-01-01T00:00:00Z';

export function initialState(): ContainerState {
  return {
    status: 'created',
    pid: 0,
    conmonPid: 0,
    exitCode: 0,
    error: '',
    startedAt: ZERO_TIME,
    finishedAt: ZERO_TIME,
    oomKilled: false,
    stoppedByUser: false,
    hasBeenStarted: false,
  };
}
