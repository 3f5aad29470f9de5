// Loading, saving and removing an image over an engine's socket. Loads and saves are timed from the
// request to the response's last byte; an answer that is not what a working engine sends throws,
// with the engine's own words, so a failure never becomes a figure.
import { createReadStream } from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import type { BigImageArchive } from './big-image-archive.js';

/** Long enough for a slow engine to write a layer to disk, short enough that a stuck one ends the run. */
const IDLE_TIMEOUT_MS = 120_000;
/** How much of an unexpected answer goes into the error. */
const QUOTED_CHARS = 2000;

interface Answer {
  status: number;
  /** The body as text; only kept when asked for, or when the status is not 2xx. */
  text: string;
  bodyBytes: number;
}

interface SendOptions {
  headers?: http.OutgoingHttpHeaders;
  /** A file streamed as the request body. */
  bodyFile?: string;
  keepBody: boolean;
}

/** POST /images/load with the archive; returns the ms until the end of the response. */
export async function loadImage(socketPath: string, archive: BigImageArchive): Promise<number> {
  const what = `POST /images/load on ${socketPath}`;
  const startedMs = performance.now();
  const answer = await send(socketPath, 'POST', '/images/load', {
    headers: { 'Content-Type': 'application/x-tar', 'Content-Length': archive.sizeBytes },
    bodyFile: archive.path,
    keepBody: true,
  });
  const elapsedMs = performance.now() - startedMs;
  if (answer.status !== 200) throw new Error(`${what} answered ${answer.status}: ${quote(answer.text)}`);
  // 200 comes before the work; failures arrive in-band as {"errorDetail":...,"error":...}.
  const messages = answer.text.split('\n').filter((line) => line.trim() !== '').map((line) => parseMessage(what, line));
  const failure = messages.find((m) => m.error !== undefined || m.errorDetail !== undefined);
  if (failure) throw new Error(`${what} failed: ${failure.error ?? JSON.stringify(failure.errorDetail)}`);
  const loaded = `Loaded image: ${archive.tag}`;
  if (!messages.some((m) => typeof m.stream === 'string' && m.stream.includes(loaded))) {
    throw new Error(`${what} did not report "${loaded}": ${quote(answer.text)}`);
  }
  return elapsedMs;
}

/** GET /images/{name}/get, reading and discarding the tar; returns the ms until its last byte. */
export async function saveImage(socketPath: string, tag: string, minBytes: number): Promise<number> {
  const urlPath = `/images/${tag}/get`;
  const what = `GET ${urlPath} on ${socketPath}`;
  const startedMs = performance.now();
  const answer = await send(socketPath, 'GET', urlPath, { keepBody: false });
  const elapsedMs = performance.now() - startedMs;
  if (answer.status !== 200) throw new Error(`${what} answered ${answer.status}: ${quote(answer.text)}`);
  // An engine that gives up after the status can only stop short.
  if (answer.bodyBytes < minBytes) throw new Error(`${what} sent ${answer.bodyBytes} bytes, fewer than the image's layers alone (${minBytes})`);
  return elapsedMs;
}

/** DELETE /images/{name}?force=1; an image that is not there is fine. */
export async function removeImage(socketPath: string, tag: string): Promise<void> {
  const urlPath = `/images/${tag}?force=1`;
  const answer = await send(socketPath, 'DELETE', urlPath, { keepBody: false });
  if (answer.status !== 200 && answer.status !== 404) {
    throw new Error(`DELETE ${urlPath} on ${socketPath} answered ${answer.status}: ${quote(answer.text)}`);
  }
}

function send(socketPath: string, method: string, urlPath: string, opts: SendOptions): Promise<Answer> {
  const what = `${method} ${urlPath} on ${socketPath}`;
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request({ socketPath, method, path: urlPath, agent: false, headers: opts.headers });
    req.setTimeout(IDLE_TIMEOUT_MS, () => req.destroy(new Error(`nothing happened for ${IDLE_TIMEOUT_MS / 1000} s`)));
    req.on('error', (err) => reject(new Error(`${what}: ${err.message}`)));
    req.on('response', (res) => {
      answered = true;
      const status = res.statusCode ?? 0;
      const keep = opts.keepBody || status < 200 || status >= 300;
      const chunks: Buffer[] = [];
      let bodyBytes = 0;
      res.on('data', (chunk: Buffer) => {
        bodyBytes += chunk.byteLength;
        if (keep) chunks.push(chunk);
      });
      // Also a connection closed before the end of the body ('aborted').
      res.on('error', (err) => reject(new Error(`${what}: the response broke off after ${bodyBytes} bytes: ${err.message}`)));
      res.on('end', () => resolve({ status, text: Buffer.concat(chunks).toString('utf8'), bodyBytes }));
    });
    if (opts.bodyFile === undefined) {
      req.end();
      return;
    }
    // An engine that refuses the upload may answer, then close, before the body is through: its
    // answer says more than the broken pipe.
    pipeline(createReadStream(opts.bodyFile), req).catch((err: Error) => {
      if (!answered) reject(new Error(`${what}: sending the body failed: ${err.message}`));
    });
  });
}

interface StreamMessage {
  stream?: unknown;
  error?: string;
  errorDetail?: unknown;
}

function parseMessage(what: string, line: string): StreamMessage {
  try {
    return JSON.parse(line) as StreamMessage;
  } catch {
    throw new Error(`${what} sent a line that is not JSON: ${quote(line)}`);
  }
}

function quote(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > QUOTED_CHARS ? `${trimmed.slice(0, QUOTED_CHARS)}…` : trimmed;
}
