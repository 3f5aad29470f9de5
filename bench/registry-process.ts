// A distribution registry (Debian's docker-registry) for the registry figures, in an engine's
// network namespace on 127.0.0.1, so that the engine reaches it over loopback as it would a real
// one: started, emptied between rounds (stopped, its storage removed, started again) and stopped.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execIn } from './netns.js';

const START_TIMEOUT_MS = 10_000;

export class RegistryProcess {
  private child: ChildProcess | undefined;

  constructor(
    private readonly netns: string,
    private readonly dir: string,
    readonly port: number,
  ) {}

  get host(): string {
    return `127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const storage = path.join(this.dir, 'storage');
    mkdirSync(storage, { recursive: true });
    const config = path.join(this.dir, 'config.yml');
    writeFileSync(config, `version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: ${storage}\nhttp:\n  addr: ${this.host}\n`);
    this.child = spawn('nsenter', [`--net=${this.netns}`, '--', 'docker-registry', 'serve', config], { stdio: 'ignore' });
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      try {
        execIn(this.netns, 'curl', ['-sf', '-o', '/dev/null', `http://${this.host}/v2/`]);
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`the registry on ${this.host} did not start`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /** Stopped, emptied and started again: the next push finds nothing there. */
  async empty(): Promise<void> {
    await this.stop();
    rmSync(path.join(this.dir, 'storage'), { recursive: true, force: true });
    await this.start();
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child === undefined || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }
}
