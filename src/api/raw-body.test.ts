import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PassThrough } from 'node:stream';
import { EngineError } from '../errors.js';
import { readRawBody, skipRawBody } from './raw-body.js';

/** A stream that gives `parts` one by one, as packets arrive, and ends unless told not to. */
function arriving(parts: Array<string | Buffer>, opts: { end?: boolean } = {}): PassThrough {
  const s = new PassThrough();
  void (async () => {
    for (const p of parts) {
      await new Promise((r) => setImmediate(r));
      s.write(p);
    }
    if (opts.end !== false) s.end();
  })();
  return s;
}

async function rest(s: PassThrough): Promise<string> {
  let text = '';
  for await (const chunk of s) text += (chunk as Buffer).toString('latin1');
  return text;
}

const chunked = { 'transfer-encoding': 'chunked' };

describe('readRawBody', () => {
  it('reads Content-Length bytes across packets and leaves what follows', async () => {
    const s = arriving(['{"a"', ':1}std', 'in']);
    assert.equal((await readRawBody(s, { 'content-length': '7' }, 100)).toString(), '{"a":1}');
    assert.equal(await rest(s), 'stdin');
  });

  it('reads nothing without framing, and what is sent is all left', async () => {
    const s = arriving(['stdin']);
    assert.equal((await readRawBody(s, {}, 100)).length, 0);
    assert.equal(await rest(s), 'stdin');
  });

  it('decodes a chunked body with extensions and trailers, byte by byte, and leaves what follows', async () => {
    const wire = '4;name=x\r\n{"a"\r\n3\r\n:1}\r\n0\r\nTrailer: t\r\n\r\nstdin';
    const s = arriving([...wire]);
    assert.equal((await readRawBody(s, chunked, 100)).toString(), '{"a":1}');
    assert.equal(await rest(s), 'stdin');
  });

  it('takes size lines ending in LF alone, as Go does, and upper-case hex', async () => {
    const s = arriving(['A\n0123456789\r\n0\n\r\nrest']);
    assert.equal((await readRawBody(s, { 'transfer-encoding': 'gzip, Chunked' }, 100)).toString(), '0123456789');
    assert.equal(await rest(s), 'rest');
  });

  it('refuses a malformed chunked body, one past the limit, and one cut short', async () => {
    const refused = (message: string) => (err: unknown) => err instanceof EngineError && err.kind === 'invalidParameter' && err.message === message;
    await assert.rejects(readRawBody(arriving(['zz\r\n']), chunked, 100), refused('malformed chunked encoding'));
    await assert.rejects(readRawBody(arriving(['2\r\nabX\r\n']), chunked, 100), refused('malformed chunked encoding'));
    await assert.rejects(readRawBody(arriving(['x'.repeat(5000)]), chunked, 100), refused('header line too long'));
    await assert.rejects(readRawBody(arriving(['5\r\n12345\r\n']), chunked, 4), refused('request body exceeds 4 bytes'));
    await assert.rejects(readRawBody(arriving(['{"a"']), { 'content-length': '7' }, 100), refused('unexpected EOF'));
  });
});

describe('skipRawBody', () => {
  it('drops the body, however long, and leaves what follows', async () => {
    const body = 'x'.repeat(100_000);
    const s = arriving([body.slice(0, 30_000), body.slice(30_000) + 'stdin']);
    assert.equal(await skipRawBody(s, { 'content-length': String(body.length) }), true);
    assert.equal(await rest(s), 'stdin');
  });

  it('says when the stream ended within the body', async () => {
    assert.equal(await skipRawBody(arriving(['5\r\nab']), chunked), false);
  });
});
