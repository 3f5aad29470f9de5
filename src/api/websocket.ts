// WebSocket sessions on the API (GET /containers/{id}/attach/ws), as dockerd 20.10 serves them
// with golang.org/x/net/websocket: no origin or subprotocol checks, no compression, messages of up
// to 32 MiB. A request that is no WebSocket handshake is a 400 with x/net's words, given before
// the connection is taken; once it is, the connection sits in the server's hijack registry, so
// shutdown cuts it like any raw stream.
import type { IncomingMessage } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { invalidParameter } from '../errors.js';
import type { RequestContext } from './context.js';
import { claimConnection, isUpgrade } from './hijack.js';
import { StreamClosedError } from './streams/mux-writer.js';

/** x/net/websocket's DefaultMaxPayloadBytes. */
const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
const NORMAL_CLOSURE = 1000;

const server = new WebSocketServer({ noServer: true, clientTracking: false, perMessageDeflate: false, maxPayload: MAX_MESSAGE_BYTES });

export interface WebSocketStream {
  /** The payloads of the client's messages, text or binary alike; ends when the connection closes. */
  readonly input: Readable;
  /** Sends one message; resolves once it is handed to the kernel, rejects with StreamClosedError if the connection is gone. */
  send(data: Buffer): Promise<void>;
  /** Closes with 1000 (normal closure), as dockerd does at the end of a session; resolves once the connection is closed. */
  close(): Promise<void>;
}

/** Throws, in x/net/websocket's words, unless the request is a WebSocket handshake it would accept. */
export function checkWebSocketHandshake(req: IncomingMessage): void {
  if (req.headers.upgrade?.toLowerCase() !== 'websocket' || !isUpgrade(req)) throw invalidParameter('not websocket protocol');
  if (req.headers['sec-websocket-version'] !== '13') throw invalidParameter('missing or bad WebSocket Version');
  if (!/^[+/0-9A-Za-z]{22}==$/.test(req.headers['sec-websocket-key'] ?? '')) throw invalidParameter('mismatch challenge/response');
}

/**
 * Checks the handshake, then answers it on the request's connection, which becomes the session's.
 * Validate everything else before calling. Resolves undefined if the client left first.
 */
export async function acceptWebSocket(ctx: RequestContext, opts: { binary: boolean }): Promise<WebSocketStream | undefined> {
  checkWebSocketHandshake(ctx.req);
  const socket = claimConnection(ctx);
  const ws = await new Promise<WebSocket | undefined>((resolve) => {
    const onClose = (): void => resolve(undefined);
    socket.once('close', onClose);
    // the server put the bytes Node read past the head back on the socket
    server.handleUpgrade(ctx.req, socket, Buffer.alloc(0), (accepted) => {
      socket.off('close', onClose);
      resolve(accepted);
    });
  });
  return ws === undefined ? undefined : streamOf(ws, opts.binary);
}

function streamOf(ws: WebSocket, binary: boolean): WebSocketStream {
  // a failure (a bad frame, a message over the limit) closes the connection: 'close' follows
  ws.on('error', () => {});
  const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
  const input = new PassThrough();
  ws.on('message', (data: RawData) => {
    // stop reading the client while the consumer is behind
    if (!input.write(toBuffer(data))) {
      ws.pause();
      input.once('drain', () => ws.resume());
    }
  });
  void closed.then(() => input.end());
  return {
    input,
    send(data) {
      return new Promise((resolve, reject) => {
        if (ws.readyState !== WebSocket.OPEN) {
          reject(new StreamClosedError('the connection is closed'));
          return;
        }
        ws.send(data, { binary }, (err) => (err ? reject(new StreamClosedError(`the connection failed: ${err.message}`, { cause: err })) : resolve()));
      });
    },
    close() {
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(NORMAL_CLOSURE);
      return closed;
    },
  };
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}
