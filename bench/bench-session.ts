// The temporary directory every berthd of a run lives in, each berthd in a network namespace of its
// own (a file beside its directory, removed when it exits), and their clean-up: berthds are
// stopped, namespaces and mounts left under the directory undone and the directory removed at the
// end, after an error, and on Ctrl-C or SIGTERM, after the clean-ups figures left with atClose
// (their containers, networks and addresses on both engines).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BerthdProcess } from './berthd-process.js';
import { createNetns, mountsUnder, removeNetns } from './netns.js';

const SIGNAL_EXIT_CODES: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143 };

export class BenchSession {
  readonly dir = mkdtempSync(path.join(os.tmpdir(), 'berth-bench-'));
  private readonly daemons = new Set<BerthdProcess>();
  private readonly namespaces = new Set<string>();
  private readonly cleanUps = new Set<() => Promise<void>>();
  private instances = 0;
  private closing: Promise<void> | null = null;

  constructor() {
    for (const [signal, code] of Object.entries(SIGNAL_EXIT_CODES)) {
      process.once(signal, () => void this.close().finally(() => process.exit(code)));
    }
    // Last resort when something calls process.exit() before close() has finished.
    process.once('exit', () => this.closeNow());
  }

  /** Spawns a berthd in a fresh directory and network namespace of its own, with `extraArgs` after the bench's flags; the caller waits for it to serve. */
  spawnBerthd(label: string, extraArgs: readonly string[] = []): BerthdProcess {
    const dir = path.join(this.dir, `${label}-${++this.instances}`);
    const netns = createNetns(`${dir}.netns`);
    this.namespaces.add(netns);
    let daemon: BerthdProcess;
    try {
      daemon = BerthdProcess.spawn(dir, netns, extraArgs);
    } catch (err) {
      this.removeNamespace(netns);
      throw err;
    }
    this.daemons.add(daemon);
    daemon.proc.once('exit', () => {
      this.daemons.delete(daemon);
      this.removeNamespace(netns);
    });
    return daemon;
  }

  /** A fresh directory for a figure's files, beside the berthds'. */
  makeDir(label: string): string {
    const dir = path.join(this.dir, `${label}-${++this.instances}`);
    mkdirSync(dir);
    return dir;
  }

  async startBerthd(label: string, extraArgs: readonly string[] = []): Promise<BerthdProcess> {
    const daemon = this.spawnBerthd(label, extraArgs);
    await daemon.waitServing();
    return daemon;
  }

  /** Runs `cleanUp` at close() unless the function returned is called first. */
  atClose(cleanUp: () => Promise<void>): () => void {
    this.cleanUps.add(cleanUp);
    return () => void this.cleanUps.delete(cleanUp);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      // the last one registered first, as a figure's own finally blocks would run
      for (const cleanUp of [...this.cleanUps].reverse()) await cleanUp().catch((err: unknown) => console.error(`bench: clean-up: ${err instanceof Error ? err.message : String(err)}`));
      await Promise.allSettled([...this.daemons].map((d) => d.stop()));
      this.closeNow();
    })();
    return this.closing;
  }

  private closeNow(): void {
    for (const d of this.daemons) d.killNow();
    for (const netns of this.namespaces) this.removeNamespace(netns);
    // what a killed berthd left mounted (its namespaces' folder, a container's root), deepest first,
    // so that removing the directory never reaches through a mount
    for (const mount of mountsUnder(this.dir).reverse()) execFileSync('umount', ['--lazy', mount], { stdio: 'ignore' });
    rmSync(this.dir, { recursive: true, force: true });
  }

  private removeNamespace(netns: string): void {
    this.namespaces.delete(netns);
    removeNetns(netns);
  }
}
