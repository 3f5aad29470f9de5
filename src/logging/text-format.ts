// --log-format text: each JSON line pino writes, rewritten as logrus's text format, as dockerd's log
// reads: time="…" level=info msg="…" key=value. Values that are not plain words are quoted as Go's
// %q quotes them; objects (an error, a request) go as their JSON, quoted.
import { Writable } from 'node:stream';

export function textFormatDestination(out: NodeJS.WritableStream): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      const lines = chunk.toString('utf8').split('\n').filter((l) => l !== '');
      const text = lines.map((l) => formatLine(l)).join('');
      if (out.write(text)) done();
      else out.once('drain', () => done());
    },
  });
}

export function formatLine(jsonLine: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(jsonLine) as Record<string, unknown>;
  } catch {
    return `${jsonLine}\n`;
  }
  const { time, level, msg, ...fields } = entry;
  const parts = [`time=${quote(String(time ?? ''))}`, `level=${String(level ?? 'info')}`, `msg=${quote(String(msg ?? ''))}`];
  for (const [k, v] of Object.entries(fields)) parts.push(`${k}=${value(v)}`);
  return `${parts.join(' ')}\n`;
}

function value(v: unknown): string {
  if (typeof v === 'string') return /^[A-Za-z0-9_./:@+-]+$/.test(v) ? v : quote(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v !== null && typeof v === 'object' && 'message' in v) return quote(String((v as { message: unknown }).message));
  return quote(JSON.stringify(v));
}

/** Go's strconv.Quote for the characters a log line can hold. */
function quote(s: string): string {
  return JSON.stringify(s);
}
