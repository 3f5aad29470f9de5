// The engine's errors. Each carries exactly one kind (moby's errdefs as a closed union);
// only src/api/error-response.ts turns a kind into an HTTP status.

export type ErrorKind =
  | 'notFound'
  | 'invalidParameter'
  | 'conflict'
  | 'unauthorized'
  | 'forbidden'
  | 'unavailable'
  | 'notModified'
  | 'notImplemented'
  | 'system';

export class EngineError extends Error {
  readonly kind: ErrorKind;
  /** a code a progress stream's error carries beside its message (a failed build step's exit code) */
  progressCode?: number;

  constructor(kind: ErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
    this.name = 'EngineError';
  }
}

export function invalidParameter(message: string, cause?: unknown): EngineError {
  return new EngineError('invalidParameter', message, { cause });
}

export function notFound(message: string): EngineError {
  return new EngineError('notFound', message);
}

export function conflict(message: string): EngineError {
  return new EngineError('conflict', message);
}

export function notImplemented(message: string): EngineError {
  return new EngineError('notImplemented', message);
}

/** The route table had nothing for this method and path; dockerd's exact body. */
export class PageNotFoundError extends EngineError {
  constructor() {
    super('notFound', 'page not found');
    this.name = 'PageNotFoundError';
  }
}

/** The API version in the path is outside what berth serves (dockerd's wording). */
export class UnsupportedApiVersionError extends EngineError {
  constructor(message: string) {
    super('invalidParameter', message);
    this.name = 'UnsupportedApiVersionError';
  }
}

/** dockerd's words for a swarm call on a node that is no swarm manager (503 on the swarm's own routes). */
export const NOT_SWARM_MANAGER_MESSAGE = 'This node is not a swarm manager. Use "docker swarm init" or "docker swarm join" to connect this node to swarm and try again.';

/** Nothing to do: the container is already in the state asked for (304, no body). */
export function notModified(): EngineError {
  return new EngineError('notModified', 'not modified');
}
