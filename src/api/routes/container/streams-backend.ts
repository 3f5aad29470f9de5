// What the container stream routes (attach, attach over WebSocket, logs) need from the engine:
// each checks the request and answers with a session, which the route runs against its writer.
import type { AttachRequest, AttachSession } from '../../../container/attach/container-attach.js';
import type { LogsRequest, LogsSession } from '../../../container/logs/container-logs.js';

export interface ContainerStreamsBackend {
  /** Bad detach keys (400), NoSuchContainer, or 409 for a paused or restarting container, in dockerd's words. */
  attach(idOrName: string, req: AttachRequest): AttachSession;
  /** No stream chosen (400), NoSuchContainer, or 501 for the `none` log driver. */
  logs(idOrName: string, req: LogsRequest): Promise<LogsSession>;
}
