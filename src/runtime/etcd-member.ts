// A swarm manager's own etcd member (docs/design/swarm.md, "Cluster store"): Debian's etcd 3.4 as
// a long-running child of berthd, restarted when it dies, on the same data dir each time (etcd
// ignores --initial-cluster and --initial-cluster-state once that holds a member, so a restarted
// berthd starts it with the options it had).
//
// It never outlives berthd: it runs under `setpriv --pdeathsig SIGKILL`, so the kernel kills it
// when berthd dies, kill -9 included, and in a session of its own, so that a signal to berthd's
// process group (a Ctrl-C) leaves its stopping to berthd.
//
// Clients and peers both speak mutual TLS with one certificate and key, the manager's own from
// the swarm CA, used to serve and as a client certificate. What etcd 3.4 checks
// (pkg/transport/listener.go, listener_tls.go), and so what that certificate must hold:
//   - an IP SAN for the host of its client and peer URLs (the manager's address): peers dial the
//     peer URL and etcd's clients the client URL by IP, and verify the server's certificate
//     against that IP (without it: "x509: cannot validate certificate for 10.0.0.2 because it
//     doesn't contain any IP SANs", and the cluster never forms);
//   - the DNS SAN `allowedHostname` (swarm-manager): etcd refuses a client or peer whose
//     certificate lacks it (--client-cert-allowed-hostname, --peer-cert-allowed-hostname), so a
//     worker's certificate from the same CA opens neither the store nor the raft;
//   - extended key usages serverAuth and clientAuth, as it serves and dials with it.
// etcd would also hold an incoming peer connection's source address against the dialer's SANs,
// with reverse and forward DNS lookups of its DNS names when the IP is not among them; a host's
// source address need not be its advertised one (several interfaces; on loopback every
// connection comes from 127.0.0.1), so that check is off
// (--experimental-peer-skip-client-san-verification): the CA and the name above decide.
// etcd's HTTP gateway is off: berth speaks gRPC, and the gateway dials its own member with a
// certificate check that --client-cert-allowed-hostname fails ("bad certificate" once a second).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import https from 'node:https';
import type { Logger } from 'pino';
import { EngineError } from '../errors.js';

export interface EtcdMemberOptions {
  /** the member's name in the cluster */
  name: string;
  /** its data, under berthd's data root; kept across restarts */
  dataDir: string;
  /** https://IP:PORT, listened on and advertised, for clients */
  clientUrl: string;
  /** https://IP:PORT, listened on and advertised, for the other members */
  peerUrl: string;
  tls: {
    /** PEM files: the swarm CA, and the manager's certificate and key (see the top of this file) */
    ca: string;
    cert: string;
    key: string;
    /** the DNS name every client's and peer's certificate must hold: swarm-manager */
    allowedHostname: string;
  };
  /** name=peerURL,... of the cluster it founds or joins (what EtcdMembership.add returns for a join) */
  initialCluster: string;
  /** 'new' to found the cluster, 'existing' to join one it was added to */
  initialClusterState: 'new' | 'existing';
  /** a cluster of this member alone, from its data, whatever members it had (etcd's --force-new-cluster): a swarm's recovery */
  forceNewCluster?: boolean;
  /** etcd's raft timings; its own (100 ms, 1000 ms) unless given */
  heartbeatIntervalMs?: number;
  electionTimeoutMs?: number;
  /** how long start() waits for the member to be healthy; 30 s unless given */
  startTimeoutMs?: number;
  log: Logger;
}

/** the CA, and the manager's certificate and key as a client (PEM) */
interface ClientTls {
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

const OUTPUT_KEPT_BYTES = 64 * 1024;
const RESTART_FIRST_MS = 100;
const RESTART_MAX_MS = 5000;
/** a run this long was no crash loop: the next restart is quick again */
const STABLE_RUN_MS = 10_000;
/** a leader's SIGTERM first hands its leadership over, which takes up to ~5 s where no peer answers */
const STOP_GRACE_MS = 10_000;
const HEALTH_POLL_MS = 100;
/** what an error or a log line quotes of its output */
const SUMMARY_LINES = 10;

export class EtcdMember {
  private child: ChildProcess | undefined;
  private closed: Promise<void> | undefined;
  private output = '';
  private stopped = true;
  private exits = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private restartMs = RESTART_FIRST_MS;

  constructor(private readonly opts: EtcdMemberOptions) {}

  /** etcd's pid while it runs */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** the last 64 KiB etcd wrote (its zap log, one JSON object a line) */
  get recentOutput(): string {
    return this.output;
  }

  /**
   * Starts etcd and resolves once it says it is healthy (/health over TLS: it has a leader and
   * answers). Rejects, with its last warnings, when it exits before that or is not healthy within
   * the start timeout; it is supervised all the same until stop(), so that a manager restarted
   * before the others are back keeps its member waiting for them, and a caller who gives up (a
   * failed join) stops it.
   */
  async start(): Promise<void> {
    if (!this.stopped) throw new Error(`etcd member ${this.opts.name} is already started`);
    this.stopped = false;
    this.exits = 0;
    this.restartMs = RESTART_FIRST_MS;
    let tls: ClientTls;
    try {
      tls = { ca: await readFile(this.opts.tls.ca), cert: await readFile(this.opts.tls.cert), key: await readFile(this.opts.tls.key) };
    } catch (err) {
      this.stopped = true;
      throw err;
    }
    this.spawn();
    const timeoutMs = this.opts.startTimeoutMs ?? 30_000;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (await healthy(this.opts.clientUrl, tls)) return;
      if (this.exits > 0) throw new EngineError('system', `etcd member ${this.opts.name} exited before it was healthy:\n${this.summary()}`);
      if (this.stopped) throw new EngineError('system', `etcd member ${this.opts.name} was stopped before it was healthy`);
      if (Date.now() > deadline) throw new EngineError('system', `etcd member ${this.opts.name} was not healthy at ${this.opts.clientUrl} within ${timeoutMs} ms:\n${this.summary()}`);
      await new Promise((r) => setTimeout(r, HEALTH_POLL_MS));
    }
  }

  /** Stops etcd (SIGTERM, SIGKILL after a grace) and its supervision; its data stays. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (child === undefined) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await this.closed;
    clearTimeout(killer);
  }

  private spawn(): void {
    // etcd reads settings from ETCD_* variables too: none but ours. 3.4 runs on arm64 only when told.
    const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ETCD_')));
    if (process.arch === 'arm64') env.ETCD_UNSUPPORTED_ARCH = 'arm64';
    const child = spawn('setpriv', ['--pdeathsig', 'SIGKILL', '--', 'etcd', ...this.args()], { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
    const startedAt = Date.now();
    this.child = child;
    const keep = (d: Buffer) => (this.output = (this.output + d.toString()).slice(-OUTPUT_KEPT_BYTES));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    // a failed spawn (no setpriv, no etcd) is told by 'error', then 'close' as for any end
    child.on('error', (err) => keep(Buffer.from(`${err.message}\n`)));
    this.closed = new Promise((resolve) => {
      child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
        this.child = undefined;
        resolve();
        this.exited(code, signal, Date.now() - startedAt);
      });
    });
    this.opts.log.info({ member: this.opts.name, pid: child.pid }, 'etcd member started');
  }

  private exited(code: number | null, signal: NodeJS.Signals | null, ranMs: number): void {
    if (this.stopped) return;
    this.exits++;
    const how = { member: this.opts.name, code, signal, output: this.summary() };
    // etcd exits 0 of its own accord only when it finds itself removed from the cluster: starting
    // it again on the same data would be refused
    if (code === 0) {
      this.stopped = true;
      this.opts.log.error(how, 'etcd member stopped on its own (removed from the cluster?); not restarting it');
      return;
    }
    if (ranMs >= STABLE_RUN_MS) this.restartMs = RESTART_FIRST_MS;
    this.opts.log.warn({ ...how, restartInMs: this.restartMs }, 'etcd member exited; restarting it');
    this.restartTimer = setTimeout(() => this.spawn(), this.restartMs);
    this.restartMs = Math.min(this.restartMs * 2, RESTART_MAX_MS);
  }

  private args(): string[] {
    const { opts } = this;
    const { tls } = opts;
    return [
      ...['--name', opts.name, '--data-dir', opts.dataDir],
      ...['--listen-client-urls', opts.clientUrl, '--advertise-client-urls', opts.clientUrl],
      ...['--listen-peer-urls', opts.peerUrl, '--initial-advertise-peer-urls', opts.peerUrl],
      ...['--initial-cluster', opts.initialCluster, '--initial-cluster-state', opts.initialClusterState],
      ...['--cert-file', tls.cert, '--key-file', tls.key, '--trusted-ca-file', tls.ca, '--client-cert-auth', '--client-cert-allowed-hostname', tls.allowedHostname],
      ...['--peer-cert-file', tls.cert, '--peer-key-file', tls.key, '--peer-trusted-ca-file', tls.ca, '--peer-client-cert-auth', '--peer-cert-allowed-hostname', tls.allowedHostname],
      '--experimental-peer-skip-client-san-verification',
      '--enable-grpc-gateway=false',
      ...(opts.forceNewCluster === true ? ['--force-new-cluster'] : []),
      ...(opts.heartbeatIntervalMs !== undefined ? ['--heartbeat-interval', String(opts.heartbeatIntervalMs)] : []),
      ...(opts.electionTimeoutMs !== undefined ? ['--election-timeout', String(opts.electionTimeoutMs)] : []),
      // zap (3.4's default logger is the deprecated capnslog), one JSON object a line
      ...['--logger', 'zap', '--log-outputs', 'stderr'],
    ];
  }

  /** etcd's last warnings and errors, or its last lines where it gave none. */
  private summary(): string {
    const lines = this.output.split('\n').filter((l) => l !== '');
    const warnings = lines.filter((l) => /"level":"(warn|error|fatal|panic)"/.test(l));
    return (warnings.length > 0 ? warnings : lines).slice(-SUMMARY_LINES).join('\n');
  }
}

/** Whether the member at `clientUrl` says it is healthy. */
function healthy(clientUrl: string, tls: ClientTls): Promise<boolean> {
  return new Promise((resolve) => {
    const req = https.get(`${clientUrl}/health`, { ...tls, agent: false, timeout: 1000 }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve(res.statusCode === 200 && /"health":\s*"true"/.test(body)));
      res.on('error', () => resolve(false));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}
