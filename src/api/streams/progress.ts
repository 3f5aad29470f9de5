// The JSON message stream of pull, load and import, as dockerd writes it (jsonmessage): text
// lines as {"stream": ...}, and an error after the first byte as {"errorDetail": ..., "error": ...}.
import { EngineError } from '../../errors.js';
import type { NdjsonWriter } from './ndjson-writer.js';

export function streamLine(text: string): string {
  return JSON.stringify({ stream: text });
}

/**
 * Ends a progress stream with the error in-band. An error berth did not classify is thrown on
 * after it is sent, so that the server logs it.
 */
export async function failInBand(out: NdjsonWriter, err: unknown): Promise<void> {
  const message = err instanceof Error ? err.message : String(err);
  await out.writeLine(JSON.stringify({ errorDetail: { message }, error: message }));
  if (!(err instanceof EngineError)) throw err;
}
