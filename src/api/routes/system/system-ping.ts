// GET and HEAD /_ping: the headers clients read before anything else (API version negotiation, OS, builder).
import type { Handler } from '../../router.js';

export const systemPing: Handler = (ctx) => {
  ctx.res.setHeader('Builder-Version', '1');
  ctx.res.setHeader('Cache-Control', 'no-cache, no-store, must-revalidate');
  ctx.res.setHeader('Pragma', 'no-cache');
  ctx.text('OK');
};
