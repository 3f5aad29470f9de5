// The -H addresses: parsed in dockerd's forms and bound. Unix sockets get mode 0660 and the
// `docker` group when it exists; TCP needs TLS unless plain TCP was asked for with --tls=false.
import { chmodSync, chownSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import type { Logger } from 'pino';

export type ListenAddress = { kind: 'unix'; path: string } | { kind: 'tcp'; host: string; port: number };

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
  if (proto !== 'tcp') throw new ListenError(`invalid bind address format: ${addr} (berth serves unix:// and tcp://)`);
  const hp = /^(?:\[([^\]]+)\]|([^:/]*))(?::(\d*))?\/?$/.exec(rest);
  if (!hp) throw new ListenError(`invalid bind address format: ${addr}`);
  const host = hp[1] ?? (hp[2] || 'localhost');
  const port = hp[3] ? Number(hp[3]) : tls ? 2376 : 2375;
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new ListenError(`invalid bind address format: ${addr}`);
  return { kind: 'tcp', host, port };
}

export async function openListener(addr: string, opts: ListenOptions): Promise<Listener> {
  const where = parseListenAddress(addr, opts.defaultSocket, opts.tls.enabled);
  if (where.kind === 'unix') return openUnix(addr, where.path, opts);
  return openTcp(addr, where.host, where.port, opts);
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
  let server: http.Server;
  if (opts.tls.enabled) {
    server = https.createServer({
      ...opts.serverOptions,
      ca: opts.tls.verify ? readFileSync(opts.tls.caFile) : undefined,
      cert: readFileSync(opts.tls.certFile),
      key: readFileSync(opts.tls.keyFile),
      requestCert: opts.tls.verify,
      rejectUnauthorized: opts.tls.verify,
      minVersion: 'TLSv1.2',
    }) as unknown as http.Server;
    if (!opts.tls.verify) opts.log.warn({ host: addr }, 'TLS without --tlsverify: any client that reaches this address controls the daemon');
  } else {
    if (!opts.plainTcpAllowed) {
      throw new ListenError(
        `refusing to serve ${addr} without TLS: anyone who reaches it gets root on this machine. ` +
          'Give --tlsverify with --tlscacert, --tlscert and --tlskey, or pass --tls=false to accept that',
      );
    }
    server = http.createServer(opts.serverOptions);
    opts.log.warn({ host: addr }, 'Binding to an IP address without TLS gives root access on this machine to everyone who can reach it');
  }
  await listen(server, { host, port });
  return { address: addr, server, close: () => undefined };
}

function listen(server: net.Server, where: net.ListenOptions): Promise<void> {
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
