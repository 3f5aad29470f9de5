// dockerd's errors.Wrap: context in front of an error's message, its kind kept.
import { EngineError } from '../../errors.js';

/** `prefix: message`; an error that is no EngineError (a file system call's) counts as the system's. */
export function wrapError(prefix: string, err: unknown): EngineError {
  return new EngineError(err instanceof EngineError ? err.kind : 'system', `${prefix}: ${(err as Error).message}`, { cause: err });
}
