// Queries for names that are not ours go to the upstream resolvers as Docker's resolver sends them
// (libnetwork forwardExtDNS): the client's message unchanged, its ID kept, over the client's
// transport, to each upstream in turn (the first three) until one answers with something other than
// SERVFAIL or REFUSED. The answer is relayed as it came: a truncated UDP answer (TC) reaches the
// client, which asks again over TCP, and that query goes upstream over TCP.
import dgram from 'node:dgram';
import net from 'node:net';
import type { Logger } from 'pino';
import { Flag, Rcode, readHeader } from './dns-header.js';
import type { Transport } from './dns-reply.js';
import { frame, TcpFrames } from './tcp-frames.js';

export interface Upstream {
  address: string;
  /** 53 when omitted. */
  port?: number;
}

export interface UpstreamForwarderOptions {
  /**
   * The querier's upstreams, read for every forwarded query so that a changed resolv.conf takes
   * effect at once. By source, as Docker keeps them per container: a container's `--dns` servers;
   * none for one on `--internal` networks only (Docker forwards from inside the container, where
   * such a network reaches nothing; berth forwards from the host, so it must be told).
   */
  upstreams: (source: string) => readonly Upstream[];
  /** How long one upstream has to answer before the next is asked: Docker's extIOTimeout, 4 s. */
  timeoutMs?: number;
  /** Forwarded queries in flight at most (Docker's maxConcurrent); past it, queries are REFUSED. */
  maxInFlight?: number;
  log?: Logger;
}

/** libnetwork's maxExtDNS. */
const MAX_UPSTREAMS = 3;

export class UpstreamForwarder {
  private inFlight = 0;
  private readonly timeoutMs: number;
  private readonly maxInFlight: number;

  constructor(private readonly options: UpstreamForwarderOptions) {
    this.timeoutMs = options.timeoutMs ?? 4000;
    this.maxInFlight = options.maxInFlight ?? 1024;
  }

  get busy(): boolean {
    return this.inFlight >= this.maxInFlight;
  }

  /** The first usable upstream answer, or undefined when none came (the caller answers SERVFAIL). */
  async forward(query: Buffer, source: string, transport: Transport): Promise<Buffer | undefined> {
    this.inFlight++;
    try {
      // an address only: a host name would be resolved through the system's resolver, maybe this one
      const upstreams = this.options.upstreams(source).filter((u) => net.isIP(u.address) !== 0);
      for (const upstream of upstreams.slice(0, MAX_UPSTREAMS)) {
        const exchange = transport === 'udp' ? exchangeUdp : exchangeTcp;
        const answer = await exchange(query, upstream.address, upstream.port ?? 53, this.timeoutMs);
        const rcode = answer === undefined ? undefined : readHeader(answer)!.flags & Flag.rcode;
        if (rcode === undefined || rcode === Rcode.servFail || rcode === Rcode.refused) {
          this.options.log?.debug({ upstream, transport, rcode }, 'dns: upstream gave no answer');
          continue;
        }
        return answer;
      }
      return undefined;
    } finally {
      this.inFlight--;
    }
  }
}

type Exchange = (query: Buffer, address: string, port: number, timeoutMs: number) => Promise<Buffer | undefined>;

/** A socket of its own for each query (a fresh source port), connected so that only the upstream's datagrams arrive and a closed port fails at once. */
const exchangeUdp: Exchange = (query, address, port, timeoutMs) =>
  new Promise((resolve) => {
    const socket = dgram.createSocket(net.isIPv6(address) ? 'udp6' : 'udp4');
    const timer = setTimeout(() => finish(), timeoutMs);
    const finish = settleOnce(resolve, () => {
      clearTimeout(timer);
      socket.close();
    });
    socket.on('error', () => finish());
    socket.on('message', (message) => {
      if (answers(query, message)) finish(message);
    });
    // a connect that fails (no route to the upstream: ENETUNREACH; a broadcast address: EACCES)
    // calls back with the error on a socket left unconnected, where send() would throw
    socket.connect(port, address, (err?: Error) => (err ? finish() : socket.send(query, (sendErr) => sendErr && finish())));
  });

const exchangeTcp: Exchange = (query, address, port, timeoutMs) =>
  new Promise((resolve) => {
    const socket = net.connect({ host: address, port, noDelay: true });
    const timer = setTimeout(() => finish(), timeoutMs);
    const finish = settleOnce(resolve, () => {
      clearTimeout(timer);
      socket.destroy();
    });
    const frames = new TcpFrames();
    socket.on('connect', () => socket.write(frame(query)));
    socket.on('data', (chunk) => {
      const answer = frames.push(chunk).find((message) => answers(query, message));
      if (answer) finish(answer);
    });
    socket.on('error', () => finish());
    socket.on('close', () => finish());
  });

/** Whether `message` is a response to `query`: the same ID, the response bit. */
function answers(query: Buffer, message: Buffer): boolean {
  const header = readHeader(message);
  return header !== undefined && header.id === query.readUInt16BE(0) && (header.flags & Flag.response) !== 0;
}

/** The resolver of a promise that also cleans up, on its first call only. */
function settleOnce(resolve: (answer: Buffer | undefined) => void, cleanUp: () => void): (answer?: Buffer) => void {
  let settled = false;
  return (answer) => {
    if (settled) return;
    settled = true;
    cleanUp();
    resolve(answer);
  };
}
