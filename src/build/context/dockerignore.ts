// A .dockerignore file read as dockerd 20.10 reads it (buildkit's dockerignore.ReadAll, vendored by
// moby v20.10): a UTF-8 BOM dropped, lines starting with `#` skipped before any trimming, each
// pattern trimmed and cleaned, a leading `/` dropped (the context's root is implied), `!` kept in
// front of an exception.
import { EngineError } from '../../errors.js';
import { goClean } from './go-path.js';

/** bufio.Scanner's limit for one line (MaxScanTokenSize). */
const MAX_LINE_BYTES = 64 * 1024;

/** The patterns of a .dockerignore file, in order. */
export function readDockerignore(content: Buffer): string[] {
  const text = (content.subarray(0, 3).equals(UTF8_BOM) ? content.subarray(3) : content).toString('utf8');
  const lines = text.split('\n');
  // a final newline ends the last line; it does not start another
  if (lines[lines.length - 1] === '') lines.pop();
  const patterns: string[] = [];
  for (const raw of lines) {
    if (Buffer.byteLength(raw) >= MAX_LINE_BYTES) throw new EngineError('system', 'Error reading .dockerignore: bufio.Scanner: token too long');
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.startsWith('#')) continue;
    let pattern = goTrimSpace(line);
    if (pattern === '') continue;
    const invert = pattern.startsWith('!');
    if (invert) pattern = goTrimSpace(pattern.slice(1));
    if (pattern.length > 0) {
      pattern = goClean(pattern);
      if (pattern.length > 1 && pattern.startsWith('/')) pattern = pattern.slice(1);
    }
    patterns.push(invert ? `!${pattern}` : pattern);
  }
  return patterns;
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Go's strings.TrimSpace: Unicode white space, which is not quite JavaScript's (U+0085 is, U+FEFF is not). */
export function goTrimSpace(s: string): string {
  return s.replace(/^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g, '');
}
