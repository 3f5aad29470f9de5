// A task's log on this node, for a manager's log subscription, as swarmkit's worker serves one:
// the entries of the task's container (found by its task ID label), none when the node has no
// container for the task or its log can't be read (a `none` driver): the worker only logs why.
import type { Logger } from 'pino';
import { TASK_ID_LABEL } from './task-agent.js';
import type { TaskLogEntry, TaskLogRead, TaskRuntime } from './task-runtime.js';

export type TaskLogs = (taskId: string, read: TaskLogRead, signal: AbortSignal) => AsyncIterable<TaskLogEntry>;

export function taskLogs(runtime: TaskRuntime, log: Logger): TaskLogs {
  return async function* (taskId, read, signal) {
    const container = runtime.list(TASK_ID_LABEL).find((c) => c.labels[TASK_ID_LABEL] === taskId);
    if (container === undefined) return;
    try {
      yield* runtime.logs(container.id, read, signal);
    } catch (err) {
      log.debug({ err, taskId }, 'swarm: task log not read');
    }
  };
}
