// A systemd-journald of the test's own, for the journald log driver's tests, that leaves the host's
// /run alone: a mount namespace of its own (held by `unshare --mount --propagation private sleep
// infinity`, so nothing mounted in it shows outside), where tmpfs hides the host's /run/systemd and
// /run/log (and /var/log/journal, when there is one), a drop-in in the new /run/systemd keeps the
// journal in memory and reads no kernel messages, and /lib/systemd/systemd-journald runs, started
// through nsenter in that namespace and in a network namespace of its own (no audit messages from
// the host either), its own log on its stderr (SYSTEMD_LOG_TARGET=console). berthd joins the mount
// namespace (Berthd's `mountns`), finds the journal's socket at /run/systemd/journal/socket as on a
// host with systemd, and reads the journal with journalctl; the test reads it with journalctl too.
// journald names its files after /etc/machine-id, which the host must have. With `journald: false`
// the namespace is made the same and no journald runs in it: a host without a journal, whatever
// the host runs.
//
// Everything goes when the journal is stopped (the test's `after`) or the test process exits
// (also when a signal stops it): journald and the holder are killed, and the namespace, with its
// mounts and the journal in them, goes with the last process in it (berthd and its containers are
// the test's to stop first).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readlinkSync } from 'node:fs';
import { createTestNetns, removeTestNetns } from './netns.js';
import { until } from './until.js';

const JOURNALD = '/lib/systemd/systemd-journald';

/**
 * journald.conf's drop-in: the journal in memory only, nothing read from or sent to elsewhere, no
 * rate limit, and room for what the tests write (by default journald keeps a tenth of the file
 * system, in files of an eighth of that, and drops the oldest).
 */
const CONFIG = [
  '[Journal]',
  'Storage=volatile',
  'ReadKMsg=no',
  'ForwardToSyslog=no',
  'ForwardToKMsg=no',
  'ForwardToConsole=no',
  'ForwardToWall=no',
  'RateLimitIntervalSec=0',
  'RuntimeMaxUse=256M',
  'RuntimeMaxFileSize=64M',
  '',
].join('\n');

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const p of live) p.kill('SIGKILL');
});
// a test file the runner stops (a timeout, Ctrl-C) dies by a signal, which skips 'exit' handlers
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => process.exit(128 + (signal === 'SIGTERM' ? 15 : 2)));
}

export interface JournalEntry {
  /** the entry's fields as `journalctl -o json` gives them: strings (MESSAGE and the like) */
  [field: string]: string;
}

export class TestJournal {
  private constructor(
    /** `/proc/<pid>/ns/mnt` of the holder: the namespace berthd joins (`mountns`) */
    readonly mountns: string,
    private readonly holder: ChildProcess,
    private readonly journald: ChildProcess | undefined,
    private readonly netns: string,
    private readonly output: () => string,
  ) {}

  static async start(name: string, opts: { journald?: boolean } = {}): Promise<TestJournal> {
    for (const dir of ['/run/systemd', '/run/log']) {
      if (!existsSync(dir)) throw new Error(`${dir} does not exist: the test would have to make it on the host to mount over it`);
    }
    const holder = track(spawn('unshare', ['--mount', '--propagation', 'private', 'sleep', 'infinity'], { stdio: 'ignore' }));
    const mountns = `/proc/${holder.pid}/ns/mnt`;
    const inside = (command: string) => execFileSync('nsenter', [`--mount=${mountns}`, '--', 'sh', '-c', command], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 10_000 });
    let journald: ChildProcess | undefined;
    let netns: string | undefined;
    try {
      // unshare has made the namespace once it has become sleep in it
      const own = readlinkSync('/proc/self/ns/mnt');
      await until('the mount namespace', () => (holder.exitCode === null ? safeReadlink(mountns) : 'gone'), (ns) => ns !== undefined && ns !== own);
      if (holder.exitCode !== null) throw new Error('unshare --mount failed');
      inside(
        [
          'set -e',
          'mount -t tmpfs -o mode=0755,size=16m tmpfs /run/systemd',
          'mount -t tmpfs -o mode=0755,size=512m tmpfs /run/log',
          'if [ -d /var/log/journal ]; then mount -t tmpfs -o mode=0755,size=1m tmpfs /var/log/journal; fi',
          'mkdir -p /run/systemd/journald.conf.d',
          `printf '%s' '${CONFIG}' > /run/systemd/journald.conf.d/berth-test.conf`,
        ].join('\n'),
      );
      netns = createTestNetns(`journald-${name}`);
      if (opts.journald === false) return new TestJournal(mountns, holder, undefined, netns, () => '');
      journald = track(spawn('nsenter', [`--mount=${mountns}`, `--net=${netns}`, '--', JOURNALD], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, SYSTEMD_LOG_TARGET: 'console' } }));
      let output = '';
      journald.stderr?.on('data', (d) => (output += d));
      const started = journald;
      await until('journald listening', () => started.exitCode !== null || existsSync(`/proc/${holder.pid}/root/run/systemd/journal/socket`), (up) => up);
      if (started.exitCode !== null) throw new Error(`systemd-journald exited (${started.exitCode}):\n${output}`);
      return new TestJournal(mountns, holder, started, netns, () => output);
    } catch (err) {
      for (const p of [journald, holder]) p?.kill('SIGKILL');
      if (netns !== undefined) removeTestNetns(netns);
      throw err;
    }
  }

  /** journalctl run in the namespace, to its end; its stdout. */
  journalctl(args: readonly string[]): string {
    return execFileSync('nsenter', [`--mount=${this.mountns}`, '--', 'journalctl', '--no-pager', ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 10_000 });
  }

  /** The entries of a field's value, oldest first, each with every field (`journalctl -o json --all`). */
  entries(match: string): JournalEntry[] {
    return this.journalctl(['--output=json', '--all', match])
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as JournalEntry);
  }

  /** What journald said of itself. */
  get log(): string {
    return this.output();
  }

  /** Kills journald and the holder; the namespace goes once nothing else is in it. */
  stop(): void {
    for (const p of [this.journald, this.holder]) {
      p?.kill('SIGKILL');
      if (p !== undefined) live.delete(p);
    }
    removeTestNetns(this.netns);
  }
}

function track(child: ChildProcess): ChildProcess {
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

function safeReadlink(file: string): string | undefined {
  try {
    return readlinkSync(file);
  } catch {
    return undefined;
  }
}
