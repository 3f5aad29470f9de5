// GET /containers/{id}/attach/ws: an attach over a WebSocket, as dockerd 20.10 serves it (asked of
// Docker 20.10): the output goes raw, one message per chunk and never multiplexed, in binary
// messages (text ones before API 1.28); every message the client sends is stdin. Up to API 1.41
// the stdin, stdout and stderr parameters are ignored and all three streams are attached (1.42
// began to honour them); logs, stream and detachKeys count as for POST attach. Bad detach keys, an
// unknown or paused container and a request that is no WebSocket handshake are statuses; after the
// handshake the session ends with a normal closure (1000), a failure too (dockerd only logs it).
import { queryBool } from '../../query.js';
import type { Handler } from '../../router.js';
import { acceptWebSocket } from '../../websocket.js';
import type { ContainerStreamsBackend } from './streams-backend.js';

export function containerAttachWebsocket(backend: ContainerStreamsBackend): Handler {
  return async (ctx) => {
    const session = backend.attach(ctx.params.id, {
      stdin: true,
      stdout: true,
      stderr: true,
      stream: queryBool(ctx.query, 'stream'),
      logs: queryBool(ctx.query, 'logs'),
      detachKeys: ctx.query.get('detachKeys') ?? undefined,
    });
    const ws = await acceptWebSocket(ctx, { binary: ctx.api.has('attachWebsocketBinaryMessages') });
    if (ws === undefined) return;
    const out = { write: (_stream: 'stdout' | 'stderr', data: Buffer) => (data.length === 0 ? Promise.resolve() : ws.send(data)) };
    try {
      await session.run({ out, input: ws.input, signal: ctx.signal });
    } finally {
      await ws.close();
    }
  };
}
