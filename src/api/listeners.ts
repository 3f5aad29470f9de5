// The -H addresses: parsed in dockerd's forms and bound. Unix sockets get mode 0660 and the
// `docker` group when it exists; TCP needs TLS unless plain TCP was asked for with --tls=false.
// fd:// serves the sockets systemd passed (socket activation): all of them, or fd://N the one at N.
import { chmodSync, chownSync, closeSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import type { Logger } from 'pino';

export type ListenAddress =
  | { kind: 'unix'; path: string }
  | { kind: 'tcp'; host: string; port: number }
  /** fd undefined: every socket systemd passed */
  | { kind: 'fd'; fd: number | undefined };

export interface TlsSettings {
  /** Serve TLS at all. */
  enabled: boolean;
  /** Refuse clients without a certificate signed by the CA. */
  verify: boolean;
  caFile: string;
  certFile: string;
  keyFile: string;
}

export interface ListenOptions {
  tls: TlsSettings;
  /** Plain TCP was asked for explicitly (--tls=false). */
  plainTcpAllowed: boolean;
  group: string;
  defaultSocket: string;
  log: Logger;
  /** The API server's (its request class). */
  serverOptions: http.ServerOptions;
  /** The listening sockets systemd passed (socket activation), for fd:// */
  activatedFds: readonly number[];
}

export interface Listener {
  address: string;
  server: http.Server;
  close(): void;
}

export class ListenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ListenError';
  }
}

export function parseListenAddress(addr: string, defaultSocket: string, tls: boolean): ListenAddress {
  const m = /^([a-z]+):\/\/(.*)$/.exec(addr.trim());
  if (!m) throw new ListenError(`invalid bind address format: ${addr}`);
  const [, proto, rest] = m;
  if (proto === 'unix') return { kind: 'unix', path: rest === '' ? defaultSocket : rest };
  if (proto === 'fd') {
    if (rest === '' || rest === '*') return { kind: 'fd', fd: undefined };
    if (!/^\d+$/.test(rest)) throw new ListenError(`failed to parse systemd fd address: should be a number: ${rest}`);
    return { kind: 'fd', fd: Number(rest) };
  }
  if (proto !== 'tcp') throw new ListenError(`invalid bind address format: ${addr} (berth serves unix://, tcp:// and fd://)`);
  const hp = /^(?:\[([^\]]+)\]|([^:/]*))(?::(\d*))?\/?$/.exec(rest);
  if (!hp) throw new ListenError(`invalid bind address format: ${addr}`);
  const host = hp[1] ?? (hp[2] || 'localhost');
  const port = hp[3] ? Number(hp[3]) : tls ? 2376 : 2375;
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new ListenError(`invalid bind address format: ${addr}`);
  return { kind: 'tcp', host, port };
}

/** Opens one -H address: one listener, or for fd:// one per socket it names. */
export async function openListeners(addr: string, opts: ListenOptions): Promise<Listener[]> {
  const where = parseListenAddress(addr, opts.defaultSocket, opts.tls.enabled);
  if (where.kind === 'unix') return [await openUnix(addr, where.path, opts)];
  if (where.kind === 'fd') return openActivated(where.fd, opts);
  return [await openTcp(addr, where.host, where.port, opts)];
}

/** dockerd's listenFD, with its wording. systemd set the sockets up (mode, group); they stay systemd's when berthd stops. */
async function openActivated(fd: number | undefined, opts: ListenOptions): Promise<Listener[]> {
  if (opts.activatedFds.length === 0) throw new ListenError('no sockets found via socket activation: make sure the service was started by systemd');
  if (fd !== undefined && !opts.activatedFds.includes(fd)) {
    throw new ListenError('too few socket activated files passed in by systemd');
  }
  // as dockerd: the sockets not asked for are closed
  for (const other of opts.activatedFds) if (fd !== undefined && other !== fd) closeSync(other);
  const listeners: Listener[] = [];
  for (const n of fd === undefined ? opts.activatedFds : [fd]) {
    const server = makeServer(`fd://${n}`, opts);
    await listen(server, { fd: n });
    const bound = server.address();
    if (typeof bound === 'object' && bound !== null && !opts.tls.enabled) {
      // a TCP socket from systemd is held to the same rule as -H tcp://
      if (!opts.plainTcpAllowed) {
        server.close();
        throw plainTcpRefused(`fd://${n} (tcp ${bound.address}:${bound.port})`);
      }
      opts.log.warn({ host: `fd://${n}` }, 'Binding to an IP address without TLS gives root access on this machine to everyone who can reach it');
    }
    listeners.push({ address: `fd://${n}`, server, close: () => undefined });
  }
  return listeners;
}

async function openUnix(addr: string, socketPath: string, opts: ListenOptions): Promise<Listener> {
  mkdirSync(path.dirname(socketPath), { recursive: true, mode: 0o755 });
  if (await socketAnswers(socketPath)) {
    throw new ListenError(`the socket ${socketPath} is in use by another daemon: stop it first, or give this one another -H`);
  }
  rmSync(socketPath, { force: true });
  const server = http.createServer(opts.serverOptions);
  await listen(server, { path: socketPath });
  const gid = groupId(opts.group);
  chmodSync(socketPath, 0o660);
  if (gid !== undefined) chownSync(socketPath, 0, gid);
  else opts.log.debug({ group: opts.group }, 'socket group not found: the socket is for root only');
  return {
    address: addr,
    server,
    close: () => rmSync(socketPath, { force: true }),
  };
}

async function openTcp(addr: string, host: string, port: number, opts: ListenOptions): Promise<Listener> {
  if (!opts.tls.enabled) {
    if (!opts.plainTcpAllowed) throw plainTcpRefused(addr);
    opts.log.warn({ host: addr }, 'Binding to an IP address without TLS gives root access on this machine to everyone who can reach it');
  }
  const server = makeServer(addr, opts);
  await listen(server, { host, port });
  return { address: addr, server, close: () => undefined };
}

/** A server for the API: TLS when it is on (without --tlsverify, with a warning), else plain HTTP. */
function makeServer(addr: string, opts: ListenOptions): http.Server {
  if (opts.tls.enabled) {
    const server = https.createServer({
      ...opts.serverOptions,
      ca: opts.tls.verify ? readFileSync(opts.tls.caFile) : undefined,
      cert: readFileSync(opts.tls.certFile),
      key: readFileSync(opts.tls.keyFile),
      requestCert: opts.tls.verify,
      rejectUnauthorized: opts.tls.verify,
      minVersion: 'TLSv1.2',
    }) as unknown as http.Server;
    if (!opts.tls.verify) opts.log.warn({ host: addr }, 'TLS without --tlsverify: any client that reaches this address controls the daemon');
    return server;
  }
  return http.createServer(opts.serverOptions);
}

function plainTcpRefused(addr: string): ListenError {
  return new ListenError(
    `refusing to serve ${addr} without TLS: anyone who reaches it gets root on this machine. ` +
      'Give --tlsverify with --tlscacert, --tlscert and --tlskey, or pass --tls=false to accept that',
  );
}

function listen(server: net.Server, where: net.ListenOptions | { fd: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(where, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function socketAnswers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const c = net.connect(socketPath);
    c.once('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });
}

function groupId(name: string): number | undefined {
  try {
    for (const line of readFileSync('/etc/group', 'utf8').split('\n')) {
      const [group, , gid] = line.split(':');
      if (group === name) return Number(gid);
    }
  } catch {
    // no /etc/group: no such group
  }
  return undefined;
}
