// A real etcd for the cluster store's tests: Debian's etcd-server (3.4), one member listening on
// free loopback ports only (clients and its peer port), its data in a temporary folder,
// optionally serving its clients over mutual TLS (certificates from tls.ts). start() returns once
// it answers /health. A test stops it in its `after`; any left at exit (a failed test, a signal
// from the runner) are killed and their folders removed.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './ports.js';
import type { TlsFixtures } from './tls.js';

/** Debian's etcd-server, which the setup installs for the tests */
export const ETCD_BINARY = 'etcd';
const START_TIMEOUT_MS = 20_000;
const OUTPUT_KEPT_BYTES = 64 * 1024;

const live = new Set<ChildProcess>();
const dirs = new Set<string>();
function cleanUp(): void {
  for (const p of live) p.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
process.on('exit', cleanUp);
// a test file the runner stops (a timeout, Ctrl-C) dies by a signal, which skips 'exit' handlers
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => process.exit(128 + (signal === 'SIGTERM' ? 15 : 2)));
}

export interface EtcdOptions {
  /** serve clients over TLS with the fixtures' server certificate, and ask for client certificates signed by their CA */
  tls?: TlsFixtures;
}

export interface Etcd {
  /** the client URL: http(s)://127.0.0.1:PORT */
  endpoint: string;
  dir: string;
  /** for an EtcdStore over TLS: the CA and the client certificate and key (PEM) */
  clientTls?: { ca: Buffer; cert: Buffer; key: Buffer };
  /** what etcd printed (its last 64 KiB) */
  readonly log: string;
  readonly running: boolean;
  /** stops it (SIGTERM, as a shutdown would), keeping its data and ports */
  stop(): Promise<void>;
  /** starts it again on the same ports and data */
  start(): Promise<void>;
  /** stops it and removes its folder, for good (what a test's `after` calls) */
  close(): Promise<void>;
}

export async function startEtcd(opts: EtcdOptions = {}): Promise<Etcd> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'berth-etcd-'));
  dirs.add(dir);
  const scheme = opts.tls ? 'https' : 'http';
  const clientTls = opts.tls ? { ca: readFileSync(opts.tls.ca), cert: readFileSync(opts.tls.clientCert), key: readFileSync(opts.tls.clientKey) } : undefined;
  let child: ChildProcess | undefined;
  let output = '';
  let endpoint = '';
  let args: string[] = [];

  const chooseArgs = async () => {
    const clientUrl = `${scheme}://127.0.0.1:${await freePort()}`;
    const peerUrl = `http://127.0.0.1:${await freePort()}`;
    endpoint = clientUrl;
    args = [
      ...['--name', 'berth-test', '--data-dir', path.join(dir, 'data')],
      ...['--listen-client-urls', clientUrl, '--advertise-client-urls', clientUrl],
      ...['--listen-peer-urls', peerUrl, '--initial-advertise-peer-urls', peerUrl],
      ...['--initial-cluster', `berth-test=${peerUrl}`, '--initial-cluster-state', 'new', '--initial-cluster-token', `berth-test-${randomBytes(4).toString('hex')}`],
      ...['--logger', 'zap', '--log-outputs', 'stderr'],
      ...(opts.tls ? ['--cert-file', opts.tls.serverCert, '--key-file', opts.tls.serverKey, '--trusted-ca-file', opts.tls.ca, '--client-cert-auth'] : []),
    ];
  };

  const stop = async () => {
    const c = child;
    if (c === undefined || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    const killer = setTimeout(() => c.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
  };

  const start = async () => {
    // etcd reads its settings from ETCD_* variables too: none of the environment's
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ETCD_')));
    const c = spawn(ETCD_BINARY, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    child = c;
    live.add(c);
    c.once('exit', () => live.delete(c));
    const keep = (d: Buffer) => (output = (output + d.toString()).slice(-OUTPUT_KEPT_BYTES));
    c.stdout?.on('data', keep);
    c.stderr?.on('data', keep);
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (c.exitCode !== null || c.signalCode !== null) throw new Error(`etcd exited (${c.exitCode ?? c.signalCode}):\n${output}`);
      if (await healthy(endpoint, clientTls)) return;
      if (Date.now() > deadline) throw new Error(`etcd did not answer on ${endpoint}:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  // the ports were free a moment ago: another process may have taken one since
  for (let attempt = 1; ; attempt++) {
    await chooseArgs();
    try {
      await start();
      break;
    } catch (err) {
      await stop();
      if (attempt === 3 || !output.includes('address already in use')) {
        rmSync(dir, { recursive: true, force: true });
        throw err;
      }
      rmSync(path.join(dir, 'data'), { recursive: true, force: true });
    }
  }

  return {
    endpoint,
    dir,
    clientTls,
    get log() {
      return output;
    },
    get running() {
      return child !== undefined && child.exitCode === null && child.signalCode === null;
    },
    stop,
    start,
    close: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
      dirs.delete(dir);
    },
  };
}

/** Whether etcd at `endpoint` says it is healthy (it has a leader and answers). */
function healthy(endpoint: string, tls: Etcd['clientTls']): Promise<boolean> {
  return new Promise((resolve) => {
    const url = `${endpoint}/health`;
    const done = (ok: boolean) => resolve(ok);
    const onResponse = (res: http.IncomingMessage) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => {
        try {
          done(res.statusCode === 200 && (JSON.parse(body) as { health?: string }).health === 'true');
        } catch {
          done(false);
        }
      });
      res.on('error', () => done(false));
    };
    const req = tls ? https.get(url, { ca: tls.ca, cert: tls.cert, key: tls.key, timeout: 1000 }, onResponse) : http.get(url, { timeout: 1000 }, onResponse);
    req.on('timeout', () => req.destroy());
    req.on('error', () => done(false));
  });
}
