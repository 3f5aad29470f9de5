// What the build tests share: the daemon they build on, build contexts written to disk or made as
// tars, and readers of the build's JSON stream. Each test file starts one berthd (in a network
// namespace of its own, with the tests' busybox) and tears it down in its `after`, also when a
// test failed. The docker CLI always runs with DOCKER_BUILDKIT=0: the classic builder.
//
// Checking the tests themselves against Docker's engine: with BERTH_TEST_SOCKET set to a unix
// socket, the tests use the daemon that listens there instead of starting berthd:
//
//   /work/shared/tools/reference-engine bt            # a reference engine of your own
//   BERTH_TEST_SOCKET=/tmp/ref-bt/docker.sock BERTH_TEST_NETNS=/run/netns/ns-bt \
//     node --test dist/test/integration/build/instructions.test.js
//
// BERTH_TEST_NETNS names that daemon's network namespace (a file), where the tests start the
// HTTP server that ADD fetches from (the test's own namespace when unset). The tests change that
// daemon: they load the tests' busybox as busybox:latest (replacing the one it had), and remove
// at the end only the containers and images that appeared while they ran. The daemon must have
// no other images built from busybox (its build cache would answer steps the tests expect to
// run). Use a daemon of your own for this, not one that others are comparing against.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import path from 'node:path';
import { tempDir, type Berthd } from '../../helpers/berthd.js';
import { busyboxImage } from '../../helpers/busybox-image.js';
import { startWithBusybox, teardown } from '../../helpers/containers.js';
import { dockerCli, type CliResult } from '../../helpers/docker-cli.js';
import { request, type RawResponse, type RequestOptions } from '../../helpers/http.js';
import { dockerSaveArchive } from '../../helpers/image-archives.js';
import { spawnIn } from '../../helpers/netns.js';

export interface BuildDaemon {
  /** unix:///… */
  dockerHost: string;
  socket: string;
  /** the daemon's network namespace file; undefined: the test's own */
  netns: string | undefined;
  /** a folder for the test's files (contexts, Dockerfiles), removed at exit */
  dir: string;
  /** the docker CLI against the daemon, with DOCKER_BUILDKIT=0 */
  docker(args: string[], opts?: { env?: NodeJS.ProcessEnv; input?: string | Buffer; timeoutMs?: number }): Promise<CliResult>;
  request(method: string, urlPath: string, opts?: RequestOptions): Promise<RawResponse>;
  /** everything the daemon is asked to delete after the tests; stops a berthd */
  stop(): Promise<void>;
}

const SOCKET = process.env.BERTH_TEST_SOCKET;

/** The daemon for one test file: a new berthd with busybox, or the one at BERTH_TEST_SOCKET. */
export async function startBuildDaemon(): Promise<BuildDaemon> {
  if (SOCKET === undefined || SOCKET === '') return fromBerthd(await startWithBusybox());
  return fromSocket(SOCKET);
}

function cliEnv(dockerHost: string, configDir: string): NodeJS.ProcessEnv {
  return { DOCKER_HOST: dockerHost, DOCKER_CONFIG: configDir, DOCKER_BUILDKIT: '0' };
}

function fromBerthd(d: Berthd): BuildDaemon {
  const dir = tempDir('berth-build-');
  return {
    dockerHost: d.dockerHost,
    socket: d.socket,
    netns: d.netns,
    dir,
    docker: (args, opts = {}) => runDocker(args, { ...opts, env: { ...cliEnv(d.dockerHost, path.join(d.dir, 'docker-config')), ...opts.env } }),
    request: (method, urlPath, opts) => d.request(method, urlPath, opts),
    stop: () => teardown(d),
  };
}

async function fromSocket(socket: string): Promise<BuildDaemon> {
  const dir = tempDir('berth-build-');
  const dockerHost = `unix://${socket}`;
  const req = (method: string, urlPath: string, opts?: RequestOptions) => request({ socketPath: socket }, method, urlPath, opts);
  const load = await req('POST', '/images/load?quiet=1', { body: await dockerSaveArchive([await busyboxImage(['busybox:latest'])]), timeoutMs: 60000 });
  if (load.status !== 200) throw new Error(`loading busybox into ${socket}: ${load.status} ${load.body}`);
  const ids = async (what: 'containers' | 'images') => {
    const r = await req('GET', what === 'containers' ? '/containers/json?all=1' : '/images/json?all=1');
    return new Set((r.json() as Array<{ Id: string }>).map((x) => x.Id));
  };
  const containersBefore = await ids('containers');
  const imagesBefore = await ids('images');
  const netns = process.env.BERTH_TEST_NETNS || undefined;
  return {
    dockerHost,
    socket,
    netns,
    dir,
    docker: (args, opts = {}) => runDocker(args, { ...opts, env: { ...cliEnv(dockerHost, path.join(dir, 'docker-config')), ...opts.env } }),
    request: req,
    stop: async () => {
      for (const id of await ids('containers')) if (!containersBefore.has(id)) await req('DELETE', `/containers/${id}?force=1&v=1`, { timeoutMs: 30000 });
      // an image with children answers 409 until they are gone: passes until one deletes nothing
      let left = ((await req('GET', '/images/json?all=1')).json() as Array<{ Id: string }>).map((i) => i.Id).filter((id) => !imagesBefore.has(id));
      while (left.length > 0) {
        const next: string[] = [];
        for (const id of left) if ((await req('DELETE', `/images/${id}?force=1`, { timeoutMs: 30000 })).status === 409) next.push(id);
        if (next.length === left.length) throw new Error(`images left on ${socket}: ${next.join(' ')}`);
        left = next;
      }
    },
  };
}

/** dockerCli with a build's time limit. */
function runDocker(args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string | Buffer; timeoutMs?: number }): Promise<CliResult> {
  return dockerCli(args, { env: opts.env, input: opts.input, timeoutMs: opts.timeoutMs ?? 120_000 });
}

export type ContextEntry = string | { content: string | Buffer; mode?: number } | { symlink: string } | { dir: true; mode?: number };

/** Writes a build context under the daemon's test folder: `{ 'Dockerfile': '…', 'd/f.txt': '…' }`; its path. */
export function writeContext(bd: BuildDaemon, name: string, entries: Record<string, ContextEntry>): string {
  const root = path.join(bd.dir, name);
  mkdirSync(root, { recursive: true });
  for (const [rel, entry] of Object.entries(entries)) {
    const file = path.join(root, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    if (typeof entry === 'string') writeFileSync(file, entry);
    else if ('symlink' in entry) symlinkSync(entry.symlink, file);
    else if ('dir' in entry) {
      mkdirSync(file, { recursive: true });
      if (entry.mode !== undefined) chmodSync(file, entry.mode);
    } else {
      writeFileSync(file, entry.content);
      if (entry.mode !== undefined) chmodSync(file, entry.mode);
    }
  }
  return root;
}

/** `docker build` with the classic builder; `args` before the context path. */
export function build(bd: BuildDaemon, context: string, args: string[] = [], opts: { input?: string | Buffer; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  return bd.docker(['build', ...args, context], { ...opts, timeoutMs: 180_000 });
}

/** Runs the image with `docker run --rm` and returns stdout; throws with stderr on a non-zero exit. */
export async function runImage(bd: BuildDaemon, image: string, cmd: string[] = [], runArgs: string[] = []): Promise<string> {
  const r = await bd.docker(['run', '--rm', ...runArgs, image, ...cmd]);
  if (r.code !== 0) throw new Error(`docker run ${image} ${cmd.join(' ')}: exit ${r.code}: ${r.stderr}`);
  return r.stdout;
}

/** The parts of GET /images/{id}/json the build tests read. */
export interface ImageJson {
  Id: string;
  Parent: string;
  Author: string;
  Container: string;
  Config: {
    User: string;
    Env: string[] | null;
    Cmd: string[] | null;
    Entrypoint: string[] | null;
    Labels: Record<string, string> | null;
    ExposedPorts?: Record<string, object>;
    Volumes: Record<string, object> | null;
    WorkingDir: string;
    StopSignal?: string;
    Healthcheck?: { Test: string[]; Interval?: number; Timeout?: number; StartPeriod?: number; Retries?: number };
    Shell?: string[];
    OnBuild: string[] | null;
    Image: string;
  };
  ContainerConfig: { Cmd: string[] | null; Image: string };
  RootFS: { Layers: string[] };
}

export async function inspectImage(bd: BuildDaemon, ref: string): Promise<ImageJson> {
  const r = await bd.request('GET', `/images/${ref}/json`);
  if (r.status !== 200) throw new Error(`GET /images/${ref}/json: ${r.status} ${r.body}`);
  return r.json() as ImageJson;
}

/** The image and its parents, newest first, as far as the parent chain goes (or `count` images). */
export async function imageChain(bd: BuildDaemon, ref: string, count = Infinity): Promise<ImageJson[]> {
  const chain: ImageJson[] = [];
  let next = ref;
  while (next !== '' && chain.length < count) {
    const img = await inspectImage(bd, next);
    chain.push(img);
    next = img.Parent;
  }
  return chain;
}

/** `docker history --no-trunc` of an image: each step's CREATED BY, newest first. */
export async function createdBy(bd: BuildDaemon, ref: string): Promise<string[]> {
  const r = await bd.docker(['history', '--no-trunc', '--format', '{{.CreatedBy}}', ref]);
  if (r.code !== 0) throw new Error(`docker history ${ref}: ${r.stderr}`);
  return r.stdout.replace(/\n$/, '').split('\n');
}

/** The `Step N/M : …` lines of the CLI's output. */
export function steps(stdout: string): string[] {
  return stdout.split('\n').filter((l) => /^Step \d+\/\d+ : /.test(l));
}

/** The image ID `Successfully built <12 hex>` names. */
export function builtId(stdout: string): string {
  const m = /^Successfully built ([0-9a-f]{12})$/m.exec(stdout);
  if (!m) throw new Error(`no "Successfully built" in:\n${stdout}`);
  return m[1];
}

/** One record of POST /build's JSON stream. */
export interface BuildRecord {
  stream?: string;
  status?: string;
  aux?: { ID: string };
  error?: string;
  errorDetail?: { code?: number; message: string };
  progressDetail?: Record<string, number>;
  progress?: string;
  id?: string;
}

/** The records of a build's body; each must end with \r\n, as dockerd writes them. */
export function records(body: string): BuildRecord[] {
  if (body !== '' && !body.endsWith('\r\n')) throw new Error(`the stream does not end with \\r\\n: ${JSON.stringify(body.slice(-80))}`);
  return body
    .split('\r\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as BuildRecord);
}

/** POST /build with a context tar (or gzip); `query` without the leading `?`. */
export function postBuild(bd: BuildDaemon, context: Buffer, query: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return bd.request('POST', `/v1.41/build?${query}`, { body: context, headers: { 'Content-Type': 'application/x-tar', ...headers }, timeoutMs: 180_000 });
}

/** IDs of all containers, stopped ones too. */
export async function containerIds(bd: BuildDaemon): Promise<string[]> {
  const r = await bd.request('GET', '/containers/json?all=1');
  return (r.json() as Array<{ Id: string }>).map((c) => c.Id);
}

/** The daemon's data root, as GET /info tells it. */
export async function dataRoot(bd: BuildDaemon): Promise<string> {
  return ((await bd.request('GET', '/info')).json() as { DockerRootDir: string }).DockerRootDir;
}

/** Every path under `dir` (not following links) whose base name is `name`. */
export function findNamed(dir: string, name: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.name === name) found.push(p);
      if (e.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return found;
}

/**
 * A static HTTP server over `root` that the daemon reaches at http://127.0.0.1:<port>/: busybox
 * httpd in the daemon's network namespace (loopback), for ADD from a URL. Stopped at exit at the
 * latest.
 */
export async function serveFiles(bd: BuildDaemon, root: string): Promise<{ url: string; close(): void }> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const args = ['httpd', '-f', '-p', `127.0.0.1:${port}`, '-h', root];
  const child: ChildProcess = bd.netns === undefined ? spawn('busybox', args, { stdio: 'ignore' }) : spawnIn(bd.netns, 'busybox', args);
  process.once('exit', () => child.kill('SIGKILL'));
  const url = `http://127.0.0.1:${port}`;
  // it serves once this file comes back, asked from the same namespace
  writeFileSync(path.join(root, '.ready'), 'ready\n');
  const probe = ['wget', '-q', '-O', '/dev/null', `${url}/.ready`];
  for (let i = 0; ; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const p = bd.netns === undefined ? spawn('busybox', probe, { stdio: 'ignore' }) : spawnIn(bd.netns, 'busybox', probe);
      p.on('exit', (code) => resolve(code === 0));
    });
    if (ok) break;
    if (i === 100 || child.exitCode !== null) throw new Error(`busybox httpd on port ${port} did not serve`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url, close: () => child.kill('SIGKILL') };
}
