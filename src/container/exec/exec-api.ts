// The exec operations the API serves: the create body decoded on the way in, and starts checked
// before the client is answered (404 and 409s as dockerd), attached ones as sessions.
import type { FrameSink, StreamSession } from '../../lib/stream-session.js';
import { decodeExecConfig } from './exec-config.js';
import type { ExecInstance } from './exec-instance.js';
import type { ExecService } from './exec-service.js';

export function execApi(execs: ExecService) {
  return {
    create: (containerRef: string, body: unknown): string => execs.create(containerRef, decodeExecConfig(body)),
    inspect: (id: string): ExecInstance => execs.inspect(id),
    startDetached: (id: string): Promise<void> => execs.startDetached(id),
    start: (id: string): StreamSession<FrameSink> => execs.start(id),
    resize: (id: string, height: number, width: number): Promise<void> => execs.resize(id, height, width),
  };
}
