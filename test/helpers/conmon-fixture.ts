// Real busybox containers under conmon and runc for stream tests, in a temporary root, and the
// cleanup that kills and deletes every one of them (and their conmons) whatever the tests did.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isConmonAlive, readPidFile, startUnderConmon, type ConmonContainer, type ConmonOptions } from '../../src/runtime/conmon.js';
import { waitForExitFile, type ExitRecord } from '../../src/runtime/exit-files.js';
import { makeBusyboxBundle } from './busybox-bundle.js';

const RUNC = execFileSync('sh', ['-c', 'command -v runc'], { encoding: 'utf8' }).trim();

export interface RunningContainer {
  opts: ConmonOptions;
  started: ConmonContainer;
  /** Resolves with the exit record once conmon has written it. */
  ended: Promise<ExitRecord>;
}

export class ConmonFixture {
  readonly root = mkdtempSync(path.join(os.tmpdir(), 'berth-streams-'));
  private readonly made: ConmonOptions[] = [];
  private readonly stop = new AbortController();
  private n = 0;

  /** Creates the container under conmon (not started). */
  async create(args: string[], extra: Partial<ConmonOptions> = {}): Promise<RunningContainer> {
    const id = `berth-streams-test-${process.pid}-${this.n++}`;
    const dir = path.join(this.root, id);
    const bundleDir = makeBusyboxBundle(path.join(dir, 'bundle'), { args, terminal: extra.terminal });
    const opts: ConmonOptions = {
      containerId: id,
      name: id,
      bundleDir,
      runtimePath: RUNC,
      runtimeRoot: path.join(this.root, 'runc'),
      runtimeLogPath: path.join(dir, 'runc.log'),
      containerPidFile: path.join(dir, 'container.pid'),
      conmonPidFile: path.join(dir, 'conmon.pid'),
      logPath: path.join(dir, 'ctr.log'),
      exitDir: path.join(this.root, 'exits'),
      persistDir: path.join(dir, 'persist'),
      socketDir: path.join(this.root, 's'),
      terminal: false,
      stdin: false,
      timeoutMs: 30_000,
      ...extra,
    };
    this.made.push(opts);
    const started = await startUnderConmon(opts);
    const ended = waitForExitFile({ exitDir: opts.exitDir, containerId: id, persistDir: opts.persistDir }, { timeoutMs: 120_000, signal: this.stop.signal });
    ended.catch(() => {});
    return { opts, started, ended };
  }

  start(c: RunningContainer): void {
    this.runc('start', c.opts.containerId);
  }

  runc(...args: string[]): void {
    const r = spawnSync(RUNC, ['--root', path.join(this.root, 'runc'), ...args], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`runc ${args.join(' ')}: ${r.stderr}`);
  }

  async cleanup(): Promise<void> {
    this.stop.abort();
    for (const c of this.made) {
      spawnSync(RUNC, ['--root', c.runtimeRoot, 'kill', c.containerId, 'KILL']);
      spawnSync(RUNC, ['--root', c.runtimeRoot, 'delete', '--force', c.containerId]);
      try {
        const pid = await readPidFile(c.conmonPidFile);
        if (await isConmonAlive(pid, c.containerId)) process.kill(pid, 'SIGKILL');
      } catch {
        // no pid file: conmon never got that far
      }
    }
    const deadline = Date.now() + 5000;
    while (this.liveConmons().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    for (const pid of this.liveConmons()) process.kill(pid, 'SIGKILL');
    rmSync(this.root, { recursive: true, force: true });
  }

  /** Live conmons of this fixture (a zombie's cmdline is empty, so it does not count). */
  liveConmons(): number[] {
    const r = spawnSync('pgrep', ['-x', 'conmon'], { encoding: 'utf8' });
    return r.stdout.split('\n').filter(Boolean).map(Number).filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(this.root);
      } catch {
        return false;
      }
    });
  }
}
