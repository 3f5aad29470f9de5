// POST /networks/{id}/connect and /disconnect: 200 with no body; the containers do the work.
import type { Handler } from '../../router.js';
import { decodeConnectBody, decodeDisconnectBody } from './connect-body.js';
import type { NetworkConnectBackend } from './connect-backend.js';

export function networkConnect(backend: NetworkConnectBackend): Handler {
  return async (ctx) => {
    await backend.connect(ctx.params.id, decodeConnectBody(await ctx.readJson()));
    ctx.res.writeHead(200, { 'Content-Length': 0 }).end();
  };
}

export function networkDisconnect(backend: NetworkConnectBackend): Handler {
  return async (ctx) => {
    await backend.disconnect(ctx.params.id, decodeDisconnectBody(await ctx.readJson()));
    ctx.res.writeHead(200, { 'Content-Length': 0 }).end();
  };
}
