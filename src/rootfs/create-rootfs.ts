// The root filesystems area: containers' writable layers over their images' layers. What an
// interrupted create or remove left in its staging folder goes before the store is read.
import path from 'node:path';
import type { Logger } from 'pino';
import { Staging } from '../store/staging.js';
import { RootfsStore } from './rootfs-store.js';

export function createRootfs(deps: { dataRoot: string; log: Logger }): RootfsStore {
  const staging = new Staging(path.join(deps.dataRoot, 'staging', 'rootfs'));
  const swept = staging.sweep();
  if (swept > 0) deps.log.info({ swept }, 'removed what interrupted root filesystem operations left');
  return new RootfsStore({ root: path.join(deps.dataRoot, 'rootfs'), staging });
}
