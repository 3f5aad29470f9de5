// What the Exec routes need from the engine.
import type { ExecInstance } from '../../../container/exec/exec-instance.js';
import type { FrameSink, StreamSession } from '../../../lib/stream-session.js';

export interface ExecBackend {
  /** Decodes and checks the body, and registers the instance; its ID. */
  create(containerRef: string, body: unknown): string;
  inspect(id: string): ExecInstance;
  /** Starts the instance (404, 409 in dockerd's words); settles once its process runs, or fails with why it could not. */
  startDetached(id: string): Promise<void>;
  /** Claims the instance (404, 409 in dockerd's words); the session runs it with the client's streams. */
  start(id: string): StreamSession<FrameSink>;
  resize(id: string, height: number, width: number): Promise<void>;
}
