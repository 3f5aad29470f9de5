// What the container inspection and control routes (top, stats, update) need from the engine.
import type { StatsRequest, StatsSession } from '../../../container/container-control.js';
import type { TopResult } from '../../../container/top/ps-output.js';

export interface ContainerControlBackend {
  /** ps_args are checked first (500 as dockerd), then the container: NoSuchContainer, or 409 when not running or restarting. */
  top(idOrName: string, psArgs: string): Promise<TopResult>;
  /** NoSuchContainer, then 400 for stream with one-shot; the session sends the frames. */
  stats(idOrName: string, req: StatsRequest): StatsSession;
  /** Decodes, checks and applies an UpdateConfig body; the warnings. `pidsLimit`: the API version honours PidsLimit. */
  update(idOrName: string, body: unknown, opts: { pidsLimit: boolean }): Promise<{ warnings: string[] }>;
}
