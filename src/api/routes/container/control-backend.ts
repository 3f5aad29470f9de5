// What the container inspection and control routes (top, stats, update) need from the engine.
import type { StatsFrame, StatsOptions } from '../../../container/stats/container-stats.js';
import type { TopResult } from '../../../container/top/ps-output.js';

export interface ContainerControlBackend {
  /** ps_args are checked first (500 as dockerd), then the container: NoSuchContainer, or 409 when not running or restarting. */
  top(idOrName: string, psArgs: string): Promise<TopResult>;
  /** The container's id and name (with its slash); throws NoSuchContainer. */
  statsTarget(idOrName: string): { id: string; name: string };
  /** The frames to send (container-stats.ts's statsFrames for the container). */
  statsFrames(id: string, opts: StatsOptions): AsyncIterable<StatsFrame>;
  /** Decodes, checks and applies an UpdateConfig body; the warnings. `pidsLimit`: the API version honours PidsLimit. */
  update(idOrName: string, body: unknown, opts: { pidsLimit: boolean }): Promise<{ warnings: string[] }>;
}
