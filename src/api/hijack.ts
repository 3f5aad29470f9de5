// Taking over a request's connection for raw streams (attach, exec start), with dockerd's exact
// heads (asked of Docker 20.10, which sends none of its usual headers on them):
//   an upgrade (Connection: Upgrade, Upgrade: tcp):
//     HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n
//   a plain request:
//     HTTP/1.1 200 OK\r\nContent-Type: application/vnd.docker.raw-stream\r\n\r\n
// After an upgrade the socket is both ways of the stream: the client's stdin comes in on it (the
// server put back the bytes Node had read past the head) and its half-close is the end of input,
// while output carries on until the handler ends it. A plain request keeps Node's parser on the
// socket, so its input is the request's body. Live sessions sit in a registry that the server cuts
// at shutdown: an upgraded socket is no longer one of the HTTP server's connections.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { invalidParameter } from '../errors.js';
import type { RequestContext } from './context.js';

const UPGRADE_HEAD = 'HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n';
const PLAIN_HEAD = 'HTTP/1.1 200 OK\r\nContent-Type: application/vnd.docker.raw-stream\r\n\r\n';
/** How long an ended session waits for the client to close its side before cutting the connection. */
const LINGER_MS = 5000;

export interface HijackedStream {
  /** The client's bytes after the head; 'end' is the client's half-close. */
  readonly input: Readable;
  /** The raw connection, for output. */
  readonly output: Writable;
  /** Resolves once the connection is closed, whoever closed it. */
  readonly closed: Promise<void>;
  /** Ends output after what is written, then closes the connection once the client has closed its side. */
  end(): void;
  /** Cuts the connection at once. */
  destroy(): void;
}

/** The hijacked connections of one server, cut when it shuts down. */
export class HijackRegistry {
  private readonly live = new Set<Socket>();

  add(socket: Socket): void {
    this.live.add(socket);
    socket.once('close', () => this.live.delete(socket));
  }

  get size(): number {
    return this.live.size;
  }

  closeAll(): void {
    for (const socket of this.live) socket.destroy();
  }
}

const hijackedResponses = new WeakSet<ServerResponse>();

/** Whether the response's connection was taken over: the server must not write an error on it. */
export function wasHijacked(res: ServerResponse): boolean {
  return hijackedResponses.has(res);
}

/** Answers with the raw-stream head and hands over the connection. Validate everything before calling. */
export function hijack(ctx: RequestContext): HijackedStream {
  const { req } = ctx;
  const socket = claimConnection(ctx);
  const closed = new Promise<void>((resolve) => {
    if (socket.destroyed) resolve();
    else socket.once('close', () => resolve());
  });
  const upgraded = isUpgrade(req);
  if (!socket.destroyed) socket.write(upgraded ? UPGRADE_HEAD : PLAIN_HEAD);
  // A stream of its own, so a consumer that finishes with it (async iteration destroys what it
  // read) leaves the connection open for output. A connection that closed without the client's
  // half-close ends input the same way.
  const input = new PassThrough();
  (upgraded ? socket : req).pipe(input);
  socket.once('close', () => {
    if (!input.writableEnded) input.end();
  });

  let lingering: NodeJS.Timeout | undefined;
  void closed.then(() => clearTimeout(lingering));
  return {
    input,
    output: socket,
    closed,
    end() {
      if (socket.destroyed || lingering !== undefined) return;
      socket.end();
      // unread input would turn the close into a reset that can lose output the client has not read yet
      input.resume();
      socket.resume();
      lingering = setTimeout(() => socket.destroy(), LINGER_MS);
      lingering.unref();
    },
    destroy() {
      socket.destroy();
    },
  };
}

/**
 * Takes the request's connection from the HTTP server: the server writes no error on it any more,
 * and shutdown cuts it. For routes that speak their own protocol on it (raw streams, WebSocket).
 */
export function claimConnection(ctx: RequestContext): Socket {
  const socket = ctx.req.socket;
  hijackedResponses.add(ctx.res);
  ctx.hijacks.add(socket);
  // an error event without a listener would crash the daemon; it is followed by 'close'
  socket.on('error', () => {});
  socket.setTimeout(0);
  socket.setNoDelay(true);
  return socket;
}

/**
 * The body of an upgrade request (exec start sends its JSON with the upgrade). Node 20 does not
 * parse it: its bytes are at the head of the socket, Content-Length of them. A plain request's
 * body is read as usual.
 */
export async function readUpgradeBody(ctx: RequestContext, maxBytes: number): Promise<Buffer> {
  const length = Number(ctx.req.headers['content-length'] ?? 0);
  if (!Number.isSafeInteger(length) || length < 0) throw invalidParameter(`Content-Length ${ctx.req.headers['content-length']} is not a length`);
  if (length > maxBytes) throw invalidParameter(`request body exceeds ${maxBytes} bytes`);
  const source: Readable = isUpgrade(ctx.req) ? ctx.req.socket : ctx.req;
  const chunks: Buffer[] = [];
  let got = 0;
  while (got < length) {
    const chunk = (source.read() as Buffer | null) ?? (await nextChunk(source));
    if (chunk === undefined) break;
    const need = length - got;
    if (chunk.length > need) {
      // stdin bytes that followed the body stay for the stream
      source.unshift(chunk.subarray(need));
      chunks.push(chunk.subarray(0, need));
      got = length;
    } else {
      chunks.push(chunk);
      got += chunk.length;
    }
  }
  return Buffer.concat(chunks);
}

/** Node's own test for the 'upgrade' event: an Upgrade header and a Connection header naming it. */
export function isUpgrade(req: IncomingMessage): boolean {
  return req.headers.upgrade !== undefined && /(^|,)\s*upgrade\s*(,|$)/i.test(req.headers.connection ?? '');
}

function nextChunk(source: Readable): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const done = (chunk: Buffer | undefined): void => {
      source.off('readable', onReadable);
      source.off('end', onEnd);
      source.off('close', onEnd);
      resolve(chunk);
    };
    const onReadable = (): void => {
      const chunk = source.read() as Buffer | null;
      if (chunk !== null) done(chunk);
    };
    const onEnd = (): void => done(undefined);
    source.on('readable', onReadable);
    source.once('end', onEnd);
    source.once('close', onEnd);
  });
}
