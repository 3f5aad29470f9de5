// Starts a real berthd on a temporary socket and data root, and cleans up after it, also when a
// test fails: each instance is stopped by its test's `after`, and any left at exit are killed.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { request, type RawResponse, type RequestOptions } from './http.js';
import { dockerCli, type CliResult } from './docker-cli.js';
import { killLogKeepersUnder, mountsUnder } from './leftovers.js';
import { createTestNetns } from './netns.js';

export const BERTHD = fileURLToPath(new URL('../../../bin/berthd', import.meta.url));

export interface StartOptions {
  /** Extra flags; the helper always sets -H (unless hosts are given here), --data-root, --exec-root, --pidfile, --config-file. */
  args?: string[];
  /** Contents of daemon.json; `{}` by default. */
  config?: Record<string, unknown>;
  /** Where the unix socket goes (and what start() waits on); a temporary path by default. */
  socket?: string;
  /** Reuse a data root (for restart and locking tests). */
  dataRoot?: string;
  /** Reuse an exec root (a restart that adopts running containers needs the same). */
  execRoot?: string;
  /** Don't add the default -H unix:// socket. */
  noDefaultHost?: boolean;
  env?: NodeJS.ProcessEnv;
  /**
   * A network namespace (a file, test/helpers/netns.ts) berthd runs in, through nsenter, so its
   * bridges and rules stay in there; 'own' makes one for it (removed when the test process ends:
   * a restart test gives the next berthd the same, `netns: first.netns`). The test's own by default.
   */
  netns?: string | 'own';
  /**
   * A mount namespace berthd runs in too (`/proc/<pid>/ns/mnt` of a process holding it, such as
   * test/helpers/test-journal.ts's), through the same nsenter; the test's own by default.
   */
  mountns?: string;
  /**
   * Listening sockets of the test process (their fds) passed to berthd from fd 3 on, with
   * LISTEN_FDS and LISTEN_PID set as systemd's socket activation sets them.
   */
  activatedFds?: number[];
}

const live = new Set<ChildProcess>();
const dirs = new Set<string>();
function cleanUp(): void {
  for (const p of live) p.kill('SIGKILL');
  for (const d of dirs) {
    // containers outlive berthd: their log pipes' keepers would too
    killLogKeepersUnder(d);
    // a berthd killed with its namespaces' folder still bound leaves that mount (and what is in it)
    for (const mount of mountsUnder(d).reverse()) spawnSync('umount', ['--lazy', mount]);
    rmSync(d, { recursive: true, force: true });
  }
}
process.on('exit', cleanUp);
// a test file the runner stops (a timeout, Ctrl-C) dies by a signal, which skips 'exit' handlers
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    cleanUp();
    process.exit(128 + (signal === 'SIGTERM' ? 15 : 2));
  });
}

export function tempDir(prefix = 'berth-test-'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.add(dir);
  return dir;
}

export class Berthd {
  readonly dir: string;
  readonly socket: string;
  readonly dataRoot: string;
  readonly pidfile: string;
  readonly configFile: string;
  readonly proc: ChildProcess;
  /** the network namespace it runs in; undefined for the test process's own */
  readonly netns: string | undefined;
  private output = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(dir: string, dataRoot: string, socket: string, args: string[], env: NodeJS.ProcessEnv | undefined, netns: string | undefined, mountns: string | undefined, activatedFds: number[]) {
    this.dir = dir;
    this.socket = socket;
    this.dataRoot = dataRoot;
    this.pidfile = path.join(dir, 'berthd.pid');
    this.configFile = path.join(dir, 'daemon.json');
    this.netns = netns;
    // nsenter execs berthd in the namespace: the same process, so signals reach berthd
    // socket activation: the shell learns its pid and execs berthd (bin/berthd execs node), which keeps it
    const command = activatedFds.length === 0 ? [BERTHD, ...args] : ['sh', '-c', 'export LISTEN_PID=$$; exec "$0" "$@"', BERTHD, ...args];
    const namespaces = [...(netns === undefined ? [] : [`--net=${netns}`]), ...(mountns === undefined ? [] : [`--mount=${mountns}`])];
    const [file, ...fileArgs] = namespaces.length === 0 ? command : ['nsenter', ...namespaces, '--', ...command];
    const activation = activatedFds.length === 0 ? {} : { LISTEN_FDS: String(activatedFds.length) };
    this.proc = spawn(file, fileArgs, { stdio: ['ignore', 'pipe', 'pipe', ...activatedFds], env: { ...process.env, ...env, ...activation } });
    live.add(this.proc);
    this.proc.stdout?.on('data', (d) => (this.output += d));
    this.proc.stderr?.on('data', (d) => (this.output += d));
    this.exited = new Promise((resolve) => {
      this.proc.on('exit', (code, signal) => {
        live.delete(this.proc);
        resolve({ code, signal });
      });
    });
  }

  /** Spawns berthd without waiting for it to serve (for start-up failures). */
  static spawn(opts: StartOptions = {}): Berthd {
    const dir = tempDir();
    const dataRoot = opts.dataRoot ?? path.join(dir, 'root');
    const socket = opts.socket ?? path.join(dir, 'berth.sock');
    const configFile = path.join(dir, 'daemon.json');
    writeFileSync(configFile, JSON.stringify(opts.config ?? {}));
    const args = [
      ...(opts.noDefaultHost ? [] : ['-H', `unix://${socket}`]),
      '--data-root', dataRoot,
      '--exec-root', opts.execRoot ?? path.join(dir, 'exec'),
      '--pidfile', path.join(dir, 'berthd.pid'),
      '--config-file', configFile,
      ...(opts.args ?? []),
    ];
    const netns = opts.netns === 'own' ? createTestNetns(`berthd-${path.basename(dir)}`) : opts.netns;
    return new Berthd(dir, dataRoot, socket, args, opts.env, netns, opts.mountns, opts.activatedFds ?? []);
  }

  /** Starts berthd and waits until it answers /_ping on its socket. */
  static async start(opts: StartOptions = {}): Promise<Berthd> {
    const d = Berthd.spawn(opts);
    await d.waitReady();
    return d;
  }

  get log(): string {
    return this.output;
  }

  get dockerHost(): string {
    return `unix://${this.socket}`;
  }

  async waitReady(timeoutMs = 15000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let exited = false;
    void this.exited.then(() => (exited = true));
    while (Date.now() < deadline) {
      if (exited) throw new Error(`berthd exited before serving:\n${this.output}`);
      try {
        const r = await this.request('GET', '/_ping');
        if (r.status === 200) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`berthd did not answer within ${timeoutMs} ms:\n${this.output}`);
  }

  request(method: string, urlPath: string, opts: RequestOptions = {}): Promise<RawResponse> {
    return request({ socketPath: this.socket }, method, urlPath, opts);
  }

  docker(args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {}): Promise<CliResult> {
    return dockerCli(args, { ...opts, env: { DOCKER_HOST: this.dockerHost, DOCKER_CONFIG: path.join(this.dir, 'docker-config'), ...opts.env } });
  }

  /**
   * Sends a signal and waits for the process to end. Fails (the suite's `after`, so the suite)
   * when berthd logged an error it did not classify, such as an unexpected 500: a bug berth hid
   * from the client's view must not hide from the tests. A test that provokes one on purpose
   * says so with `expectErrors`.
   */
  async stop(signal: NodeJS.Signals = 'SIGTERM', opts: { expectErrors?: boolean } = {}): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill(signal);
    const timeout = setTimeout(() => this.proc.kill('SIGKILL'), 15000);
    const result = await this.exited;
    clearTimeout(timeout);
    const errors = this.loggedErrors();
    if (errors.length > 0 && !opts.expectErrors) throw new Error(`berthd logged ${errors.length} unexpected error(s):\n${errors.join('\n')}`);
    return result;
  }

  /** The lines berthd logged at level error or fatal (its JSON lines name the level). */
  loggedErrors(): string[] {
    return this.output.split('\n').filter((line) => {
      if (!line.startsWith('{')) return false;
      try {
        const { level } = JSON.parse(line) as { level?: unknown };
        return level === 'error' || level === 'fatal';
      } catch {
        return false;
      }
    });
  }
}
