// The temporary directory every berthd of a run lives in, and its clean-up: berthds are stopped and
// the directory removed at the end, after an error, and on Ctrl-C or SIGTERM.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BerthdProcess } from './berthd-process.js';

const SIGNAL_EXIT_CODES: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143 };

export class BenchSession {
  readonly dir = mkdtempSync(path.join(os.tmpdir(), 'berth-bench-'));
  private readonly daemons = new Set<BerthdProcess>();
  private instances = 0;
  private closing: Promise<void> | null = null;

  constructor() {
    for (const [signal, code] of Object.entries(SIGNAL_EXIT_CODES)) {
      process.once(signal, () => void this.close().finally(() => process.exit(code)));
    }
    // Last resort when something calls process.exit() before close() has finished.
    process.once('exit', () => this.closeNow());
  }

  /** Spawns a berthd in a fresh directory of its own; the caller waits for it to serve. */
  spawnBerthd(label: string): BerthdProcess {
    const daemon = BerthdProcess.spawn(path.join(this.dir, `${label}-${++this.instances}`));
    this.daemons.add(daemon);
    daemon.proc.once('exit', () => this.daemons.delete(daemon));
    return daemon;
  }

  /** A fresh directory for a figure's files, beside the berthds'. */
  makeDir(label: string): string {
    const dir = path.join(this.dir, `${label}-${++this.instances}`);
    mkdirSync(dir);
    return dir;
  }

  async startBerthd(label: string): Promise<BerthdProcess> {
    const daemon = this.spawnBerthd(label);
    await daemon.waitServing();
    return daemon;
  }

  close(): Promise<void> {
    this.closing ??= Promise.allSettled([...this.daemons].map((d) => d.stop())).then(() => this.closeNow());
    return this.closing;
  }

  private closeNow(): void {
    for (const d of this.daemons) d.killNow();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
