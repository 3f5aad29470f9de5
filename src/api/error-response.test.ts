import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EngineError, PageNotFoundError, type ErrorKind } from '../errors.js';
import { toErrorReply } from './error-response.js';

describe('toErrorReply', () => {
  // moby's errdefs mapping (api/server/httpstatus), kind by kind
  const expected: Record<ErrorKind, number> = {
    notModified: 304, invalidParameter: 400, unauthorized: 401, forbidden: 403, notFound: 404,
    conflict: 409, system: 500, notImplemented: 501, unavailable: 503,
  };
  for (const [kind, status] of Object.entries(expected) as Array<[ErrorKind, number]>) {
    it(`maps ${kind} to ${status}`, () => {
      assert.deepEqual(toErrorReply(new EngineError(kind, 'm')), { status, message: 'm', unexpected: false });
    });
  }
  it('gives dockerd\'s body for an unknown route', () => {
    assert.deepEqual(toErrorReply(new PageNotFoundError()), { status: 404, message: 'page not found', unexpected: false });
  });
  it('marks an unclassified error as unexpected 500 with its message', () => {
    assert.deepEqual(toErrorReply(new TypeError('boom')), { status: 500, message: 'boom', unexpected: true });
    assert.deepEqual(toErrorReply('text'), { status: 500, message: 'text', unexpected: true });
  });
});
