// Registries for the pull, push and login tests: Debian's docker-registry (the CNCF distribution
// registry 2.8) started on a free port in berthd's network namespace (berthd runs in one of its
// own, so the registry must be in there too; nothing listens outside namespaces the test made),
// with storage in a temporary folder, and optionally
//   - HTTP basic auth from an htpasswd file of users the test chose (bcrypt, as the registry wants),
//   - bearer tokens from a token server of the test's (registry-servers/token-server.ts),
//   - TLS with a CA and a server certificate made with openssl for the address it listens on,
// plus a faulty proxy in front of it (registry-servers/faulty-proxy.ts) and an HTTP client that
// runs in the namespace (registry-servers/fetch.ts), through which the tests put images into the
// registry and read it back without berth. Everything is killed when the namespace is removed or
// the test process ends (test/helpers/netns.ts), and the folders go with the test's (berthd.ts).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import bcrypt from 'bcryptjs';
import { tempDir } from './berthd.js';
import { execIn, spawnIn } from './netns.js';
import type { TokenServerSettings } from './registry-servers/token-server.js';

const SERVERS = fileURLToPath(new URL('./registry-servers/', import.meta.url));
export const REGISTRY_BINARY = '/usr/bin/docker-registry';

export interface FetchResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text(): string;
  json(): unknown;
}

/** One HTTP request made from inside `netns` (a CA file for https). */
export function fetchIn(netns: string, method: string, url: string, opts: { headers?: Record<string, string>; body?: Buffer | string; ca?: string } = {}): Promise<FetchResult> {
  return new Promise((resolve, reject) => {
    const spec = JSON.stringify({ method, url, headers: opts.headers ?? {}, ca: opts.ca });
    const child = spawn('nsenter', [`--net=${netns}`, '--', process.execPath, path.join(SERVERS, 'fetch.js'), spec], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = Buffer.concat(out).toString('utf8').trim();
      if (code !== 0 || line === '') return reject(new Error(`${method} ${url} in ${netns}: exit ${code}: ${err}`));
      const r = JSON.parse(line) as { status?: number; headers?: FetchResult['headers']; body?: string; error?: string };
      if (r.error !== undefined) return reject(new Error(`${method} ${url}: ${r.error}`));
      const body = Buffer.from(r.body ?? '', 'base64');
      resolve({ status: r.status ?? 0, headers: r.headers ?? {}, body, text: () => body.toString('utf8'), json: () => JSON.parse(body.toString('utf8')) });
    });
    child.stdin.end(opts.body);
  });
}

/** A TCP port free on `address` in `netns` a moment ago. */
export function freePortIn(netns: string, address = '127.0.0.1'): number {
  const script = `const s=require('net').createServer().listen(0,${JSON.stringify(address)},()=>{console.log(s.address().port);s.close()})`;
  return Number(execIn(netns, process.execPath, ['-e', script]).trim());
}

/** Adds `address`/32 to the loopback of `netns` (a registry address outside 127.0.0.0/8, which Docker takes as insecure). */
export function addLoopbackAddress(netns: string, address: string): void {
  execIn(netns, 'ip', ['addr', 'add', `${address}/32`, 'dev', 'lo']);
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

export interface RegistryCerts {
  /** the CA's certificate (PEM), what goes to certs.d/HOST:PORT/ca.crt */
  ca: string;
  cert: string;
  key: string;
}

/** A CA and a server certificate for `address` it signed, made with openssl in `dir`. */
export function makeRegistryCerts(dir: string, address: string): RegistryCerts {
  openssl(dir, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=berth test registry CA', '-keyout', 'ca-key.pem', '-out', 'ca.pem']);
  writeFileSync(path.join(dir, 'server.ext'), `subjectAltName=IP:${address}\nextendedKeyUsage=serverAuth\n`);
  openssl(dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${address}`, '-keyout', 'server-key.pem', '-out', 'server.csr']);
  openssl(dir, ['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial', '-days', '2', '-extfile', 'server.ext', '-out', 'server.pem']);
  return { ca: path.join(dir, 'ca.pem'), cert: path.join(dir, 'server.pem'), key: path.join(dir, 'server-key.pem') };
}

/** Lines of JSON a helper server prints, and a wait for its first ({"port":N}). */
class JsonLines {
  readonly entries: Array<Record<string, unknown>> = [];
  private buffer = '';
  private waiters: Array<() => void> = [];
  constructor(readonly child: ChildProcess) {
    child.stdout?.on('data', (c: Buffer) => {
      this.buffer += c.toString('utf8');
      let nl;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        try {
          this.entries.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          this.entries.push({ text: line });
        }
        for (const w of this.waiters.splice(0)) w();
      }
    });
    child.stderr?.on('data', (c: Buffer) => this.entries.push({ stderr: c.toString('utf8') }));
  }

  /** Waits for an entry that matches, for at most timeoutMs. */
  async waitFor(what: string, ok: (e: Record<string, unknown>) => boolean, timeoutMs = 15_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.entries.find(ok);
      if (found) return found;
      if (this.child.exitCode !== null || this.child.signalCode !== null) throw new Error(`${what}: the server exited: ${JSON.stringify(this.entries)}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(this.entries.slice(-20))}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 100);
      });
    }
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

export interface TokenServer {
  /** the realm: http://127.0.0.1:PORT/token */
  realm: string;
  service: string;
  issuer: string;
  settingsFile: string;
  /** the requests it answered, one entry each (user, scopes, access granted, status) */
  readonly requests: Array<Record<string, unknown>>;
  /** changes its settings (read at each request) */
  set(changes: Partial<TokenServerSettings>): void;
  stop(): Promise<void>;
}

/** The test's token server in `netns`, signing with a new EC P-256 key whose self-signed certificate is `cert`. */
export async function startTokenServer(netns: string, dir: string, settings: Pick<TokenServerSettings, 'users'> & Partial<TokenServerSettings>): Promise<TokenServer & { cert: string }> {
  openssl(dir, ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', '/CN=berth test token issuer', '-keyout', 'token-key.pem', '-out', 'token-cert.pem']);
  const full: TokenServerSettings = {
    issuer: 'berth-test-token-issuer',
    service: 'berth-test-registry',
    keyFile: path.join(dir, 'token-key.pem'),
    certFile: path.join(dir, 'token-cert.pem'),
    anonymous: 'none',
    field: 'both',
    expiresIn: 300,
    ...settings,
  };
  const settingsFile = path.join(dir, 'token-server.json');
  writeFileSync(settingsFile, JSON.stringify(full));
  const child = spawnIn(netns, process.execPath, [path.join(SERVERS, 'token-server.js'), settingsFile]);
  const lines = new JsonLines(child);
  const { port } = (await lines.waitFor('the token server', (e) => typeof e.port === 'number')) as { port: number };
  let current = full;
  return {
    realm: `http://127.0.0.1:${port}/token`,
    service: full.service,
    issuer: full.issuer,
    cert: full.certFile,
    settingsFile,
    get requests() {
      return lines.entries.filter((e) => e.port === undefined);
    },
    set(changes) {
      current = { ...current, ...changes };
      writeFileSync(settingsFile, JSON.stringify(current));
    },
    stop: () => stopChild(child),
  };
}

export type ProxyMode = 'pass' | 'blob-500' | 'blob-close' | 'slow' | 'delay' | 'redirect';
export interface ProxyState {
  mode: ProxyMode;
  closeAfterBytes?: number;
  bytesPerSecond?: number;
  delayMs?: number;
}

export interface FaultyProxy {
  host: string;
  port: number;
  /** the requests it forwarded or failed, and its progress on blob bodies */
  readonly log: Array<Record<string, unknown>>;
  set(state: ProxyState): void;
  waitFor(what: string, ok: (e: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** A faulty proxy in `netns` in front of `target` (host:port), in `state` (see registry-servers/faulty-proxy.ts). */
export async function startFaultyProxy(netns: string, dir: string, target: string, state: ProxyState = { mode: 'pass' }): Promise<FaultyProxy> {
  const stateFile = path.join(dir, `proxy-${randomBytes(4).toString('hex')}.json`);
  writeFileSync(stateFile, JSON.stringify(state));
  const child = spawnIn(netns, process.execPath, [path.join(SERVERS, 'faulty-proxy.js'), target, stateFile]);
  const lines = new JsonLines(child);
  const { port } = (await lines.waitFor('the faulty proxy', (e) => typeof e.port === 'number')) as { port: number };
  return {
    host: `127.0.0.1:${port}`,
    port,
    get log() {
      return lines.entries.filter((e) => e.port === undefined);
    },
    set: (s) => writeFileSync(stateFile, JSON.stringify(s)),
    waitFor: (what, ok, timeoutMs) => lines.waitFor(what, ok, timeoutMs),
    stop: () => stopChild(child),
  };
}

export interface RegistryOptions {
  /** the network namespace it runs in: berthd's (`berthd.netns`) */
  netns: string;
  auth?: 'htpasswd' | 'token';
  /** user → password for htpasswd or the token server; one random user by default */
  users?: Record<string, string>;
  /** token server settings beyond the users */
  token?: Partial<TokenServerSettings>;
  tls?: boolean;
  /** what it listens on; 127.0.0.1 by default (see addLoopbackAddress for another) */
  address?: string;
}

export interface Registry {
  netns: string;
  address: string;
  port: number;
  /** ADDRESS:PORT, the registry part of image references */
  host: string;
  /** http(s)://ADDRESS:PORT */
  url: string;
  dir: string;
  /** the filesystem driver's root (its blobs under docker/registry/v2/blobs) */
  storage: string;
  users: Record<string, string>;
  /** with tls: the CA, the certificate and key */
  certs?: RegistryCerts;
  token?: TokenServer;
  /** the registry's own output (access log and errors) */
  readonly log: string;
  /** whether it is running */
  readonly running: boolean;
  /** kills it (as a crash would) */
  stop(): Promise<void>;
  /** starts it again on the same port and storage */
  start(): Promise<void>;
  /** stops it and its token server, for good (what a test's `after` calls) */
  close(): Promise<void>;
  /** where the registry keeps the blob with `digest` */
  blobFile(digest: string): string;
  /**
   * A request to the registry from inside the namespace. `as` names a user (the first by default)
   * to authenticate as: basic, or a token for `scope` from the token server; `as: null` for none.
   */
  fetch(method: string, urlPath: string, opts?: { headers?: Record<string, string>; body?: Buffer | string; as?: string | null; scope?: string }): Promise<FetchResult>;
}

export async function startRegistry(opts: RegistryOptions): Promise<Registry> {
  const dir = tempDir('berth-registry-');
  const storage = path.join(dir, 'storage');
  mkdirSync(storage);
  const address = opts.address ?? '127.0.0.1';
  const port = freePortIn(opts.netns, address);
  const host = `${address}:${port}`;
  const users = opts.users ?? { tester: `pw-${randomBytes(6).toString('hex')}` };
  const certs = opts.tls ? makeRegistryCerts(dir, address) : undefined;
  const scheme = certs ? 'https' : 'http';
  let token: (TokenServer & { cert: string }) | undefined;
  const lines = ['version: 0.1', 'log:', '  level: info', '  formatter: text', 'storage:', '  filesystem:', `    rootdirectory: ${storage}`, '  delete:', '    enabled: true', '  maintenance:', '    uploadpurging:', '      enabled: false', 'http:', `  addr: ${host}`, `  secret: ${randomBytes(16).toString('hex')}`];
  if (certs) lines.push('  tls:', `    certificate: ${certs.cert}`, `    key: ${certs.key}`);
  lines.push('health:', '  storagedriver:', '    enabled: false');
  if (opts.auth === 'htpasswd') {
    const htpasswd = Object.entries(users).map(([u, p]) => `${u}:${bcrypt.hashSync(p, 5)}`).join('\n');
    writeFileSync(path.join(dir, 'htpasswd'), `${htpasswd}\n`);
    lines.push('auth:', '  htpasswd:', '    realm: berth-test-registry', `    path: ${path.join(dir, 'htpasswd')}`);
  } else if (opts.auth === 'token') {
    token = await startTokenServer(opts.netns, dir, { users, ...opts.token });
    lines.push('auth:', '  token:', `    realm: ${token.realm}`, `    service: ${token.service}`, `    issuer: ${token.issuer}`, `    rootcertbundle: ${token.cert}`);
  }
  const configFile = path.join(dir, 'config.yml');
  writeFileSync(configFile, `${lines.join('\n')}\n`);

  let child: ChildProcess | undefined;
  let output = '';
  const start = async (): Promise<void> => {
    const c = spawnIn(opts.netns, REGISTRY_BINARY, ['serve', configFile]);
    child = c;
    c.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    c.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    const deadline = Date.now() + 15_000;
    for (;;) {
      if (c.exitCode !== null || c.signalCode !== null) throw new Error(`docker-registry exited:\n${output}`);
      if (output.includes('listening on')) {
        const r = await fetchIn(opts.netns, 'GET', `${scheme}://${host}/v2/`, { ca: certs?.ca }).catch(() => undefined);
        if (r !== undefined && (r.status === 200 || r.status === 401)) return;
      }
      if (Date.now() > deadline) throw new Error(`docker-registry did not answer on ${host}:\n${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await start();

  const first = Object.keys(users)[0];
  const authorization = async (as: string | null | undefined, scope: string | undefined): Promise<Record<string, string>> => {
    const user = as === undefined ? first : as;
    if (opts.auth === undefined || user === null) return {};
    const basic = `Basic ${Buffer.from(`${user}:${users[user]}`).toString('base64')}`;
    if (opts.auth === 'htpasswd') return { Authorization: basic };
    const query = new URLSearchParams({ service: token!.service, ...(scope ? { scope } : {}) });
    const r = await fetchIn(opts.netns, 'GET', `${token!.realm}?${query}`, { headers: { Authorization: basic } });
    if (r.status !== 200) throw new Error(`token for ${user} (${scope}): ${r.status} ${r.text()}`);
    const answer = r.json() as { token?: string; access_token?: string };
    return { Authorization: `Bearer ${answer.token ?? answer.access_token}` };
  };

  return {
    netns: opts.netns,
    address,
    port,
    host,
    url: `${scheme}://${host}`,
    dir,
    storage,
    users,
    certs,
    token,
    get log() {
      return output;
    },
    get running() {
      return child !== undefined && child.exitCode === null && child.signalCode === null;
    },
    stop: async () => {
      if (child) await stopChild(child);
    },
    start,
    close: async () => {
      if (child) await stopChild(child);
      await token?.stop();
    },
    blobFile: (digest) => {
      const hex = digest.replace(/^sha256:/, '');
      return path.join(storage, 'docker/registry/v2/blobs/sha256', hex.slice(0, 2), hex, 'data');
    },
    fetch: async (method, urlPath, o = {}) => {
      const headers = { ...(await authorization(o.as, o.scope)), ...o.headers };
      return fetchIn(opts.netns, method, `${scheme}://${host}${urlPath}`, { headers, body: o.body, ca: certs?.ca });
    },
  };
}

export function digestOf(data: Buffer | string): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}
