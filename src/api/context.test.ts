// The JSON body reader on a real HTTP server: dockerd's rules for content type, empty and malformed bodies.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { EngineError } from '../errors.js';
import { negotiateApiVersion } from './api-version.js';
import { RequestContext } from './context.js';
import { HijackRegistry } from './hijack.js';
import { toErrorReply, writeErrorResponse } from './error-response.js';

let server: http.Server;
let port: number;

before(async () => {
  server = http.createServer(async (req, res) => {
    const ctx = new RequestContext({ req, res, api: negotiateApiVersion(undefined), params: {}, query: new URLSearchParams(), shutdown: new AbortController().signal, hijacks: new HijackRegistry() });
    try {
      ctx.json({ got: (await ctx.readJson()) ?? null });
    } catch (err) {
      assert.ok(err instanceof EngineError);
      writeErrorResponse(res, toErrorReply(err), false);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
after(() => server.close());

async function post(body: string, contentType?: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body, headers: contentType ? { 'Content-Type': contentType } : {} });
  return { status: res.status, body: await res.json() };
}

describe('RequestContext.readJson', () => {
  it('parses an application/json body', async () => {
    assert.deepEqual(await post('{"a":1}', 'application/json; charset=utf-8'), { status: 200, body: { got: { a: 1 } } });
  });
  it('treats an empty body as absent', async () => {
    assert.deepEqual(await post('', 'application/json'), { status: 200, body: { got: null } });
  });
  it('answers 400 for malformed JSON', async () => {
    const r = await post('{bad', 'application/json');
    assert.equal(r.status, 400);
    assert.match((r.body as { message: string }).message, /^invalid JSON body: /);
  });
  it('answers 400 for another content type, in dockerd words', async () => {
    assert.deepEqual(await post('{}', 'text/plain'), { status: 400, body: { message: "Content-Type specified (text/plain) must be 'application/json'" } });
  });
});
