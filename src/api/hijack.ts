// Taking over a request's connection for raw streams (attach, exec start), with dockerd's exact
// heads (asked of Docker 20.10, which sends none of its usual headers on them):
//   an upgrade (Connection: Upgrade, Upgrade: tcp):
//     HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n
//   a plain request:
//     HTTP/1.1 200 OK\r\nContent-Type: application/vnd.docker.raw-stream\r\n\r\n
// Both come through Node's 'upgrade' event (hijackingRequestClass), so the socket is the route's
// from the end of the head: the request's body comes first on it (dockerode sends its options as
// one), then the client's stdin, whose half-close is the end of input, while output carries on
// until the handler ends it. The body is never stdin: exec start reads it (readHijackBody), and
// hijack() drops one left unread. dockerd drops whatever Go buffered with the head, body and early
// stdin alike; here stdin is exactly what follows the body. Live sessions sit in a registry that
// the server cuts at shutdown: an upgraded socket is no longer one of the HTTP server's connections.
import { IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import type { RequestContext } from './context.js';
import { readRawBody, skipRawBody } from './raw-body.js';

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

/**
 * The request class of the API's servers (http.createServer's IncomingMessage option). Node hands a
 * request to its 'upgrade' event, parser detached and body unread on the socket, when the
 * request's `upgrade` is true once its head is parsed. Without an Upgrade header, Node's parser
 * would read the body, then the client's stdin as the next request (and answer it 400 in the
 * middle of the stream). So `upgrade` is also true for a request to a route that takes the
 * connection: plain or not, it reaches the route as an upgrade, which reads the body itself.
 */
export function hijackingRequestClass(takesConnection: (req: IncomingMessage) => boolean): typeof IncomingMessage {
  class HijackingRequest extends IncomingMessage {
    /** What Node's parser found: the head asks for an upgrade. */
    upgradeAsked: boolean | null = null;
    routeTakesConnection: boolean | undefined;
  }
  // an accessor over IncomingMessage's plain field, which Node's parser sets and then reads
  Object.defineProperty(HijackingRequest.prototype, 'upgrade', {
    get(this: HijackingRequest): boolean {
      if (this.upgradeAsked === true) return true;
      // the method and URL come with the head; before it, nothing is known
      if (!this.method) return false;
      this.routeTakesConnection ??= takesConnection(this);
      return this.routeTakesConnection;
    },
    set(this: HijackingRequest, asked: boolean | null) {
      this.upgradeAsked = asked;
    },
  });
  return HijackingRequest;
}

const bodiesRead = new WeakSet<IncomingMessage>();

/**
 * Reads the body of a request whose connection the route takes (exec start's JSON), by its
 * Content-Length or chunked coding; the stream starts after it.
 */
export async function readHijackBody(ctx: RequestContext, maxBytes: number): Promise<Buffer> {
  const body = await readRawBody(ctx.req.socket, ctx.req.headers, maxBytes);
  bodiesRead.add(ctx.req);
  return body;
}

/**
 * Answers with the raw-stream head and hands over the connection; input starts after the request's
 * body, which is dropped unless read. Validate everything before calling.
 */
export function hijack(ctx: RequestContext): HijackedStream {
  const { req } = ctx;
  const socket = claimConnection(ctx);
  const closed = new Promise<void>((resolve) => {
    if (socket.destroyed) resolve();
    else socket.once('close', () => resolve());
  });
  if (!socket.destroyed) socket.write(isUpgrade(req) ? UPGRADE_HEAD : PLAIN_HEAD);
  // A stream of its own, so a consumer that finishes with it (async iteration destroys what it
  // read) leaves the connection open for output. A connection that closed without the client's
  // half-close ends input the same way.
  const input = new PassThrough();
  if (bodiesRead.has(req)) {
    socket.pipe(input);
  } else {
    // output need not wait for a body still coming; a malformed one hides where stdin starts
    void skipRawBody(socket, req.headers).then(
      (complete) => (complete ? socket.pipe(input) : input.end()),
      () => socket.destroy(),
    );
  }
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

/** Node's own test for the 'upgrade' event: an Upgrade header and a Connection header naming it. */
export function isUpgrade(req: IncomingMessage): boolean {
  return req.headers.upgrade !== undefined && /(^|,)\s*upgrade\s*(,|$)/i.test(req.headers.connection ?? '');
}
