// The embedded DNS server: UDP and TCP on port 53 of each address it is given (in berth, each user
// network's gateway on the host side of its bridge), answering from the registry and forwarding
// the rest. It logs at debug only (a query is never worth a line at info), but for a bug in
// answering, an error with its stack.
import dgram from 'node:dgram';
import net from 'node:net';
import type { Logger } from 'pino';
import type { DnsRecords } from './dns-records.js';
import { QueryHandler } from './query-handler.js';
import { frame, TcpFrames } from './tcp-frames.js';
import { UpstreamForwarder, type Upstream } from './upstream-forwarder.js';

export interface DnsServerOptions {
  records: DnsRecords;
  /** The resolvers a querier's names not ours go to, read for every forwarded query (see UpstreamForwarderOptions). */
  upstreams: (source: string) => readonly Upstream[];
  /** How long each upstream has to answer (4 s, as Docker's). */
  upstreamTimeoutMs?: number;
  log?: Logger;
}

interface Listener {
  port: number;
  udp: dgram.Socket;
  tcp: net.Server;
  connections: Set<net.Socket>;
}

/** A TCP client quiet this long is dropped (miekg/dns's idle timeout). */
const TCP_IDLE_MS = 8000;

export class DnsServer {
  private readonly handler: QueryHandler;
  private readonly listeners = new Map<string, Listener>();
  private readonly log?: Logger;

  constructor(options: DnsServerOptions) {
    this.log = options.log;
    // never itself, as Docker leaves its own address out (filterExtServers): the query would loop
    const upstreams = (source: string) => options.upstreams(source).filter((u) => this.listeners.get(u.address)?.port !== (u.port ?? 53));
    const forwarder = new UpstreamForwarder({ upstreams, timeoutMs: options.upstreamTimeoutMs, log: options.log });
    this.handler = new QueryHandler(options.records, forwarder, options.log);
  }

  async listen(address: string, port = 53): Promise<void> {
    if (this.listeners.has(address)) throw new Error(`DNS server already listens on ${address}`);
    const udp = dgram.createSocket(net.isIPv6(address) ? 'udp6' : 'udp4');
    const connections = new Set<net.Socket>();
    const tcp = net.createServer((socket) => this.serveConnection(socket, connections));
    try {
      await bound(udp, () => udp.bind({ address, port, exclusive: true }));
      await bound(tcp, () => tcp.listen({ host: address, port, exclusive: true }));
    } catch (err) {
      closeQuietly(udp, tcp);
      throw err;
    }
    udp.on('message', (message, peer) => this.serveDatagram(udp, message, peer));
    // after the bind, errors are a client's (a send refused): nothing to stop serving for
    udp.on('error', (err) => this.log?.debug({ err, address }, 'dns: UDP socket error'));
    tcp.on('error', (err) => this.log?.debug({ err, address }, 'dns: TCP listener error'));
    this.listeners.set(address, { port, udp, tcp, connections });
    this.log?.debug({ address, port }, 'dns: listening');
  }

  async close(address: string): Promise<void> {
    const listener = this.listeners.get(address);
    if (!listener) return;
    this.listeners.delete(address);
    for (const socket of listener.connections) socket.destroy();
    await Promise.all([new Promise<void>((resolve) => listener.udp.close(() => resolve())), new Promise<void>((resolve) => listener.tcp.close(() => resolve()))]);
    this.log?.debug({ address }, 'dns: closed');
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.listeners.keys()].map((address) => this.close(address)));
  }

  private serveDatagram(udp: dgram.Socket, message: Buffer, peer: dgram.RemoteInfo): void {
    // a query answered before is answered in this turn of the loop: no promise to settle first
    const cached = this.handler.cached(message, peer.address, 'udp');
    if (cached) return this.sendDatagram(udp, cached, peer);
    void this.handler.handle(message, peer.address, 'udp').then((reply) => reply && this.sendDatagram(udp, reply, peer));
  }

  private sendDatagram(udp: dgram.Socket, reply: Buffer, peer: dgram.RemoteInfo): void {
    try {
      udp.send(reply, peer.port, peer.address, (err) => err && this.log?.debug({ err, peer }, 'dns: UDP reply not sent'));
    } catch (err) {
      // closed while the query was forwarded
      this.log?.debug({ err, peer }, 'dns: UDP reply not sent');
    }
  }

  /** Queries may follow one another on a connection (RFC 7766); each reply goes out when ready, and reading pauses while the client does not take them. */
  private serveConnection(socket: net.Socket, connections: Set<net.Socket>): void {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
    socket.on('error', (err) => this.log?.debug({ err, peer: socket.remoteAddress }, 'dns: TCP connection error'));
    socket.setNoDelay(true);
    socket.setTimeout(TCP_IDLE_MS, () => socket.destroy());
    const source = socket.remoteAddress ?? '';
    const frames = new TcpFrames();
    socket.on('data', (chunk) => {
      for (const message of frames.push(chunk)) {
        void this.handler.handle(message, source, 'tcp').then((reply) => {
          if (!reply || socket.destroyed) return;
          if (!socket.write(frame(reply))) {
            socket.pause();
            socket.once('drain', () => socket.resume());
          }
        });
      }
    });
  }
}

/** Resolves once `start` has bound `emitter`, rejects with its bind error. */
function bound(emitter: dgram.Socket | net.Server, start: () => void): Promise<void> {
  return new Promise((resolve, reject) => {
    emitter.once('error', reject);
    emitter.once('listening', () => {
      emitter.off('error', reject);
      resolve();
    });
    start();
  });
}

function closeQuietly(udp: dgram.Socket, tcp: net.Server): void {
  try {
    udp.close();
  } catch {
    // never bound
  }
  tcp.close();
}
