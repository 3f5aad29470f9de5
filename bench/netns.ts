// Network namespaces for the benchmark, so that it never changes the host's network: each berthd
// runs in one of its own (a file bound with `unshare --net`, loopback up, as test/helpers/netns.ts
// makes them), as the reference engine runs in its own; the figures' load generators and queriers
// run in an engine's namespace, or a container's, through `nsenter --net` (which changes nothing
// else: the mount namespace and /proc stay the bench's). Synchronous where a clean-up may run at
// process exit.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const TIMEOUT_MS = 10_000;

/** A new namespace bound to `file` (which must not exist), loopback up; its path. */
export function createNetns(file: string): string {
  writeFileSync(file, '', { flag: 'wx' });
  try {
    execFileSync('unshare', [`--net=${file}`, 'ip', 'link', 'set', 'lo', 'up'], { stdio: ['ignore', 'ignore', 'pipe'], timeout: TIMEOUT_MS });
  } catch (err) {
    removeNetns(file);
    throw err;
  }
  return file;
}

/** Unmounts and deletes the namespace's file; the links inside go with its last process. A missing file is no error. */
export function removeNetns(file: string): void {
  if (mountsUnder(file).length > 0) execFileSync('umount', ['--lazy', file], { stdio: 'ignore', timeout: TIMEOUT_MS });
  rmSync(file, { force: true });
}

/** Mount points at or under `dir`, from this process's mountinfo (octal escapes left as they are: the bench's paths have none). */
export function mountsUnder(dir: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[4])
    .filter((m): m is string => m !== undefined && (m === dir || m.startsWith(`${dir}/`)))
    .sort();
}

/** Runs `file args` in the namespace to its end; its stdout, or an error with its stderr. */
export function execIn(netns: string, file: string, args: readonly string[]): string {
  return execFileSync('nsenter', [`--net=${netns}`, '--', file, ...args], { encoding: 'utf8', timeout: TIMEOUT_MS, stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * Runs one of the bench's own scripts (dist/bench/<script>.js) with node in the namespace, gives it
 * `input` as JSON on stdin, and parses the JSON it prints; a failure throws with its stderr.
 */
export function nodeIn<T>(netns: string, script: string, input: unknown, timeoutMs: number): Promise<T> {
  const scriptPath = fileURLToPath(new URL(`./${script}.js`, import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn('nsenter', [`--net=${netns}`, '--', process.execPath, scriptPath], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`${script} in ${netns} ended with ${code ?? signal}: ${stderr.trim().slice(-2000)}`));
      try {
        resolve(JSON.parse(stdout) as T);
      } catch {
        reject(new Error(`${script} in ${netns} printed no JSON: ${stdout.slice(0, 500)}`));
      }
    });
    child.stdin.end(JSON.stringify(input));
  });
}

/** The JSON a script run by nodeIn was given on stdin. */
export async function readInput<T>(): Promise<T> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as T;
}

/**
 * An address of the namespace that is not loopback, as a host's own address is, on a link of its
 * own: one end of a veth pair whose both ends stay in the namespace (this kernel has no dummy
 * links; traffic to a local address goes through loopback whatever link holds it). Removed, with
 * the pair, by the returned function (once; later calls do nothing), or at process exit if the
 * bench stops first.
 */
export function addHostAddress(netns: string, link: string, address: string): () => void {
  execIn(netns, 'ip', ['link', 'add', link, 'type', 'veth', 'peer', 'name', `${link}-p`]);
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    process.off('exit', removeAtExit);
    execIn(netns, 'ip', ['link', 'del', link]);
  };
  // at exit, a namespace already gone (a berthd's, removed when it stopped) took the link with it
  const removeAtExit = () => {
    try {
      remove();
    } catch {
      // nothing more can be done at exit
    }
  };
  process.on('exit', removeAtExit);
  try {
    execIn(netns, 'ip', ['addr', 'add', `${address}/32`, 'dev', link]);
    execIn(netns, 'ip', ['link', 'set', link, 'up']);
  } catch (err) {
    remove();
    throw err;
  }
  return remove;
}
