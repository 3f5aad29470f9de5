// What the Exec routes need from the engine.
import type { ExecInstance } from '../../../container/exec/exec-instance.js';
import type { ExecLaunch, ExecSession } from '../../../container/exec/exec-service.js';

export interface ExecBackend {
  /** Decodes and checks the body, and registers the instance; its ID. */
  create(containerRef: string, body: unknown): string;
  inspect(id: string): ExecInstance;
  /** Checks that the instance can start and claims it (404, 409 in dockerd's words). */
  claim(id: string): ExecInstance;
  /** Runs a claimed instance, with the client's streams when one is attached. */
  launch(instance: ExecInstance, session?: ExecSession): ExecLaunch;
  resize(id: string, height: number, width: number): Promise<void>;
}
