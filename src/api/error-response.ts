// The only place where an error becomes an HTTP status and a {"message"} body.
import type { ServerResponse } from 'node:http';
import { EngineError, type ErrorKind } from '../errors.js';

export type ErrorStatus = 304 | 400 | 401 | 403 | 404 | 409 | 500 | 501 | 503;

const statusByKind: Record<ErrorKind, ErrorStatus> = {
  notModified: 304,
  invalidParameter: 400,
  unauthorized: 401,
  forbidden: 403,
  notFound: 404,
  conflict: 409,
  system: 500,
  notImplemented: 501,
  unavailable: 503,
};

export interface ErrorReply {
  status: ErrorStatus;
  message: string;
  /** An error berth did not classify: logged with its stack. */
  unexpected: boolean;
}

export function toErrorReply(err: unknown): ErrorReply {
  if (err instanceof EngineError) {
    return { status: statusByKind[err.kind], message: err.message, unexpected: false };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { status: 500, message, unexpected: true };
}

/** Writes the reply for an error raised before the first byte of the response. */
export function writeErrorResponse(res: ServerResponse, reply: ErrorReply, headRequest: boolean): void {
  if (reply.status === 304) {
    res.writeHead(304).end();
    return;
  }
  const body = JSON.stringify({ message: reply.message }) + '\n';
  res.writeHead(reply.status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(headRequest ? undefined : body);
}
