// Network namespaces for tests, so that no test changes the host's network: a test makes its own
// (a file in this helper's temporary folder, loopback up, made with unshare rather than the code
// under test), runs commands and processes in it with `nsenter --net` (not `ip netns exec`, which
// remounts /sys in a mount namespace of its own and hides the cgroup mounts), and removes it; the
// links, addresses and iptables rules inside go with it. Veth pairs join two test namespaces, never
// the host. Whatever a test leaves (it failed, or a signal stopped it) goes at exit: the processes
// it started are killed and every mount under the folder is undone.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import type dgram from 'node:dgram';
import type net from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mountsUnder } from './leftovers.js';

let folder: string | undefined;
const processes = new Map<string, Set<ChildProcess>>();

function helperFolder(): string {
  folder ??= mkdtempSync(path.join(os.tmpdir(), 'berth-netns-'));
  return folder;
}

function killIn(netns?: string): void {
  for (const [ns, set] of processes) {
    if (netns !== undefined && ns !== netns) continue;
    for (const p of set) p.kill('SIGKILL');
    processes.delete(ns);
  }
}

function cleanUp(): void {
  killIn();
  if (folder === undefined) return;
  // deepest first: the namespaces' files, then the folders the code under test bound onto themselves
  for (const mount of mountsUnder(folder).reverse()) execFileSync('umount', ['--lazy', mount]);
  rmSync(folder, { recursive: true, force: true });
}
process.on('exit', cleanUp);
// a test file the runner stops (a timeout, Ctrl-C) dies by a signal, which skips 'exit' handlers
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => process.exit(128 + (signal === 'SIGTERM' ? 15 : 2)));
}

/** A new folder in the helper's, for namespace files the code under test makes; undone at exit with the rest. */
export function netnsTestDir(name: string): string {
  const dir = path.join(helperFolder(), name);
  mkdirSync(dir);
  return dir;
}

/** Runs `file args` in the namespace at `netns` to its end and returns its stdout; throws with its stderr when it fails. */
export function execIn(netns: string, file: string, args: readonly string[] = [], opts: { input?: string; timeoutMs?: number } = {}): string {
  return execFileSync('nsenter', [`--net=${netns}`, '--', file, ...args], { encoding: 'utf8', input: opts.input, timeout: opts.timeoutMs ?? 10_000, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Starts `file args` in the namespace at `netns`; killed by removeTestNetns of that namespace, or at exit. */
export function spawnIn(netns: string, file: string, args: readonly string[] = []): ChildProcess {
  const child = spawn('nsenter', [`--net=${netns}`, '--', file, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const set = processes.get(netns) ?? new Set();
  processes.set(netns, set);
  set.add(child);
  child.once('exit', () => set.delete(child));
  return child;
}

/** A namespace of the test's own named `name`, loopback up; its file's path. */
export function createTestNetns(name: string): string {
  const file = path.join(helperFolder(), name);
  writeFileSync(file, '', { flag: 'wx' });
  execFileSync('unshare', [`--net=${file}`, 'ip', 'link', 'set', 'lo', 'up']);
  return file;
}

/** Kills what runs in it, unmounts and deletes it: everything inside goes with it (veth pairs with both ends). */
export function removeTestNetns(file: string): void {
  killIn(file);
  if (mountsUnder(file).length > 0) execFileSync('umount', ['--lazy', file]);
  rmSync(file, { force: true });
}

export interface VethEnd {
  netns: string;
  name: string;
  /** CIDR: 192.168.77.1/24 */
  address: string;
}

/** A veth pair between two test namespaces, both ends up with their addresses. */
export function vethBetween(a: VethEnd, b: VethEnd): void {
  execIn(a.netns, 'ip', ['link', 'add', a.name, 'type', 'veth', 'peer', 'name', b.name, 'netns', b.netns]);
  for (const end of [a, b]) {
    execIn(end.netns, 'ip', ['addr', 'add', end.address, 'dev', end.name]);
    execIn(end.netns, 'ip', ['link', 'set', end.name, 'up']);
  }
}

/**
 * A listening socket in the namespace at `netns`, for this process: a TCP server or a bound UDP
 * socket on 127.0.0.1 with an ephemeral port, made by a node child there and handed over through
 * its IPC channel (a socket keeps the namespace it was made in), so that a test serves the code
 * under test in its namespace with node:net and node:dgram.
 */
export function listenIn(netns: string, kind: 'tcp'): Promise<net.Server>;
export function listenIn(netns: string, kind: 'udp'): Promise<dgram.Socket>;
export function listenIn(netns: string, kind: 'tcp' | 'udp'): Promise<net.Server | dgram.Socket> {
  const script =
    kind === 'udp'
      ? "const s = require('node:dgram').createSocket('udp4'); s.bind(0, '127.0.0.1', () => process.send('udp', s, () => process.exit(0)));"
      : "const s = require('node:net').createServer(); s.listen(0, '127.0.0.1', () => process.send('tcp', s, () => process.exit(0)));";
  return new Promise((resolve, reject) => {
    const child = spawn('nsenter', [`--net=${netns}`, '--', process.execPath, '-e', script], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let stderr = '';
    child.stderr?.on('data', (d) => (stderr += d));
    child.once('message', (_m, handle) => resolve(handle as net.Server | dgram.Socket));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`listening in ${netns} failed (${code}): ${stderr}`)));
  });
}
