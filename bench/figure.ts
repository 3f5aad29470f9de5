// What a figure module provides, and what it gets to measure with. A new figure is one module in
// figures/ added to figures/all-figures.ts.
import type { BerthdProcess } from './berthd-process.js';
import type { ReferenceEngine } from './reference-engine.js';

export interface BenchContext {
  /**
   * A berthd in a fresh directory and network namespace, already answering /_ping, with
   * `extraArgs` after the bench's own flags. Stopped at the end of the run if the figure doesn't stop it.
   */
  startBerthd(label: string, extraArgs?: readonly string[]): Promise<BerthdProcess>;
  /** A berthd just spawned, for figures that time its start-up themselves, or set up its namespace while it starts. */
  spawnBerthd(label: string, extraArgs?: readonly string[]): BerthdProcess;
  /** A fresh directory for a figure's own files, removed at the end of the run. */
  makeDir(label: string): string;
  /**
   * A clean-up the run does at its end if the figure has not done it itself: the figure's own
   * `finally` does not run when Ctrl-C or SIGTERM stops the run. Returns the function that takes it
   * back, for the figure to call once it has cleaned up.
   */
  atClose(cleanUp: () => Promise<void>): () => void;
  /** Docker's engine, when BENCH_REFERENCE_SOCKET names one. */
  reference: ReferenceEngine | null;
  /** Progress, on stderr so that --json output stays clean. */
  progress(message: string): void;
}

/** The goal a row is held to, in the row's unit. */
export type Target =
  /** For rates: berth reaches at least `ratio` (1 when omitted) of the reference's. */
  | { kind: 'atLeastReference'; ratio?: number }
  /** For times and memory: berth takes no more than `ratio` (1 when omitted) of the reference's. */
  | { kind: 'atMostReference'; ratio?: number }
  /** For times: berth takes less than `limit`. */
  | { kind: 'below'; limit: number }
  /** For rates the reference can't be measured on: berth reaches at least `limit`. */
  | { kind: 'atLeast'; limit: number };

/** MB/s: 10^6 bytes a second, as dd counts them. */
export type Unit = 'req/s' | 'records/s' | 'ms' | 's' | 'MiB' | 'MB/s';

export interface Row {
  figure: string;
  unit: Unit;
  berth: number;
  /** null when the reference engine is absent or this figure can't be taken from it. */
  reference: number | null;
  target?: Target;
  /** The measurements behind a median, for --json. */
  samples?: { berth: number[]; reference: number[] };
  /** Where a figure came from or why it is missing. */
  note?: string;
}

export interface Figure {
  name: string;
  measure(ctx: BenchContext): Promise<Row[]>;
}
