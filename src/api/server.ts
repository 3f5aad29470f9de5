// The HTTP front door. One dispatch() serves both 'request' and 'upgrade', so routing, version
// checks and errors are the same on both paths; handlers that stream get a signal that fires when
// the client leaves or the daemon shuts down. createApiServer mounts every area's routes on the
// backends the areas give, and listen() opens the -H addresses.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { setMaxListeners } from 'node:events';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { BERTH_VERSION } from '../version.js';
import { CURRENT_API_VERSION, negotiateApiVersion, splitVersionPrefix } from './api-version.js';
import { RequestContext } from './context.js';
import { toErrorReply, writeErrorResponse } from './error-response.js';
import { HijackRegistry, hijackingRequestClass, wasHijacked } from './hijack.js';
import { openListeners, type ListenOptions, type Listener } from './listeners.js';
import { Router } from './router.js';
import { allRoutes, type Backends } from './routes/all-routes.js';

const COMMON_HEADERS: ReadonlyArray<[string, string]> = [
  ['Api-Version', CURRENT_API_VERSION],
  ['Docker-Experimental', 'false'],
  ['Ostype', 'linux'],
  ['Server', `berth/${BERTH_VERSION} (linux)`],
];

export type { Backends } from './routes/all-routes.js';

/** What the API tells of each request it answered (the metrics' per-endpoint counts and durations). */
export type RequestObserver = (r: { operation: string; method: string; status: number; seconds: number }) => void;

const MAX_HEADER_BYTES = 1 << 20;
/** How long a connection answered on the upgrade path waits for the client to close its side. */
const UNREAD_LINGER_MS = 5000;

/** The API on every area's backend. */
export function createApiServer(backends: Backends, log: Logger, observe?: RequestObserver): ApiServer {
  return new ApiServer(new Router(allRoutes(backends)), log, observe);
}

export class ApiServer {
  /** Options for every HTTP server this API serves (made with them before attach()): the request class of hijacking routes. */
  readonly serverOptions: http.ServerOptions;
  private readonly router: Router;
  private readonly log: Logger;
  private readonly shutdown = new AbortController();
  private readonly servers = new Set<http.Server>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly hijacks = new HijackRegistry();
  private readonly listeners: Listener[] = [];
  private readonly observe: RequestObserver | undefined;

  constructor(router: Router, log: Logger, observe?: RequestObserver) {
    // every streaming request listens for shutdown: a dozen at once is usual, not a leak
    setMaxListeners(0, this.shutdown.signal);
    this.router = router;
    this.log = log;
    this.observe = observe;
    this.serverOptions = {
      IncomingMessage: hijackingRequestClass((req) => router.hijacks(req.method ?? '', target(req.url).path)),
      // a request head of up to a megabyte, as Go's http.DefaultMaxHeaderBytes lets dockerd read
      // (long filters, a big X-Registry-Auth); Node's default of 16 KiB answers 431 without JSON
      maxHeaderSize: MAX_HEADER_BYTES,
    };
  }

  /** Serves HTTP on a server made with serverOptions (plain or TLS). */
  attach(server: http.Server): void {
    this.servers.add(server);
    // an idle keep-alive connection stays until the client closes it, as dockerd's Go server keeps
    // it: Node's 5 s closing races a client reusing the connection then (Node's own agent frees
    // sockets after 5 s too), and the request fails with EPIPE or ECONNRESET
    server.keepAliveTimeout = 0;
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.track(this.dispatch(req, res)));
    server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
      // An upgrade, or any request to a route that takes the connection (hijackingRequestClass).
      // Bytes Node read past the head (a body, stdin) go back on the socket for the route to read.
      if (head.length > 0) socket.unshift(head);
      // Answer through a ServerResponse bound to the raw socket; routes that hijack take it over.
      const res = new http.ServerResponse(req);
      res.shouldKeepAlive = false;
      res.assignSocket(socket);
      res.on('finish', () => {
        res.detachSocket(socket);
        socket.end();
        // an answer given before the body was read (a malformed chunked one): what the client
        // still sends is drained, so its end closes the connection, which a client that never
        // ends loses after a while; a paused socket would be held open for ever
        socket.resume();
        const linger = setTimeout(() => socket.destroy(), UNREAD_LINGER_MS).unref();
        socket.once('close', () => clearTimeout(linger));
      });
      this.track(this.dispatch(req, res));
    });
  }

  /** Opens a -H address (unix://, tcp:// or fd://) and serves on it until close(). */
  async listen(address: string, opts: Omit<ListenOptions, 'log' | 'serverOptions'>): Promise<void> {
    for (const listener of await openListeners(address, { ...opts, log: this.log, serverOptions: this.serverOptions })) {
      this.listeners.push(listener);
      this.attach(listener.server);
      this.log.info({ address: listener.address }, 'API listen on %s', listener.address);
    }
  }

  /** Stops accepting, cuts streams at once, lets other requests finish for up to `graceMs`, then cuts them. */
  async close(graceMs: number): Promise<void> {
    const closed = [...this.servers].map((s) => new Promise<void>((resolve) => s.close(() => resolve())));
    this.shutdown.abort();
    this.hijacks.closeAll();
    for (const s of this.servers) s.closeIdleConnections();
    const timer = setTimeout(() => {
      for (const s of this.servers) s.closeAllConnections();
    }, graceMs);
    await Promise.allSettled([...this.inFlight]);
    for (const s of this.servers) s.closeAllConnections();
    clearTimeout(timer);
    await Promise.all(closed);
    for (const l of this.listeners) l.close();
  }

  private track(p: Promise<void>): void {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    for (const [k, v] of COMMON_HEADERS) res.setHeader(k, v);
    const { pathname, version, path, query } = target(req.url);
    this.log.debug({ method: req.method, url: req.url }, 'Calling %s %s', req.method, pathname);
    const started = process.hrtime.bigint();
    // requests no route serves are counted together, so that a scan of paths can't grow the metrics
    let operation = 'none';
    try {
      const { route, params } = this.router.match(req.method ?? 'GET', path);
      operation = route.operationId;
      const api = negotiateApiVersion(version);
      await route.handle(new RequestContext({ req, res, api, params, query, shutdown: this.shutdown.signal, hijacks: this.hijacks }));
    } catch (err) {
      this.fail(req, res, err);
    }
    const method = operation === 'none' ? 'other' : (req.method ?? 'GET');
    this.observe?.({ operation, method, status: res.statusCode, seconds: Number(process.hrtime.bigint() - started) / 1e9 });
  }

  private fail(req: IncomingMessage, res: ServerResponse, err: unknown): void {
    // the client left, or the daemon stops: nobody hears an answer, and the error says only that
    const cut = this.shutdown.signal.aborted || (res.destroyed && !res.writableFinished);
    if (res.headersSent || wasHijacked(res)) {
      // after the first byte the status is gone; a failure the daemon did not owe to the client is a bug to log
      if (!cut) this.log.error({ err, method: req.method, url: req.url }, 'error after the response started');
      res.destroy();
      return;
    }
    const reply = toErrorReply(err);
    if (reply.unexpected && !cut) this.log.error({ err, method: req.method, url: req.url }, 'unexpected error');
    else this.log.debug({ status: reply.status, message: reply.message }, 'request failed');
    writeErrorResponse(res, reply, req.method === 'HEAD');
  }
}

/** A request's URL: its path with and without the /vX.Y prefix, and its query. */
function target(url = '/'): { pathname: string; version: string | undefined; path: string; query: URLSearchParams } {
  const q = url.indexOf('?');
  const pathname = q < 0 ? url : url.slice(0, q);
  return { pathname, ...splitVersionPrefix(pathname), query: new URLSearchParams(q < 0 ? '' : url.slice(q + 1)) };
}
