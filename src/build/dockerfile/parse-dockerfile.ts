// A Dockerfile into its instruction nodes, as the parser of buildkit's frontend/dockerfile
// (the version moby v20.10 vendors) reads it: parser directives, comments, line continuations
// with the escape token, the per-keyword argument splitting. No heredocs (not in 20.10).
import { DockerfileError } from './dockerfile-error.js';
import { isGoSpace } from './go-space.js';
import { parseLine } from './parse-line.js';

export interface DockerfileNode {
  /** lower-case instruction: 'from', 'run', ... (as written when unknown) */
  keyword: string;
  /** the arguments as buildkit's parser splits them for this keyword (its node.Next chain);
   * ONBUILD's are its trigger's keyword then the trigger's arguments */
  args: string[];
  /** exec (JSON array) form */
  json: boolean;
  /** leading flags as written, quotes removed: '--from=build', '--chown=1:1' */
  flags: string[];
  /** the logical line, continuations joined, leading space and comment lines dropped, trailing
   * space kept (node.Original); dockerd prints it trimmed in "Step N/M : ..." */
  original: string;
  /** 1-based, the first and last physical line */
  startLine: number;
  endLine: number;
  /** ONBUILD's trigger, parsed */
  next?: DockerfileNode;
}

export interface ParsedDockerfile {
  escapeToken: '\\' | '`';
  nodes: DockerfileNode[];
  /** dockerd writes these to the build's stderr before the first step */
  warnings: string[];
}

// bufio.Scanner's default token limit, less the newline
const MAX_LINE_BYTES = 65535;

// Go's \s in the directive pattern is ASCII [\t\n\f\r ]; its `.` only excludes \n.
const DIRECTIVE = /^#[\t\n\f\r ]*([a-zA-Z][a-zA-Z0-9]*)[\t\n\f\r ]*=[\t\n\f\r ]*([^\n]+?)[\t\n\f\r ]*$/;
const KNOWN_DIRECTIVES = new Set(['escape', 'syntax']);

/** Throws DockerfileError with buildkit's bare message (dockerd adds "failed to parse <name>: "). */
export function parseDockerfile(text: string): ParsedDockerfile {
  const directives = new Directives();
  const lines = new LineScanner(text);
  const nodes: DockerfileNode[] = [];
  const warnings: string[] = [];
  let currentLine = 0;

  for (let raw = lines.next(); raw !== undefined; raw = lines.next()) {
    if (currentLine === 0 && raw.startsWith('\uFEFF')) raw = raw.slice(1);
    const first = trimLeftSpace(raw);
    directives.consider(first);
    currentLine++;
    const startLine = currentLine;
    let [line, isEndOfLine] = directives.trimContinuation(first.startsWith('#') ? '' : first);
    if (isEndOfLine && line === '') continue;

    let hasEmptyContinuationLine = false;
    while (!isEndOfLine) {
      const more = lines.next();
      if (more === undefined) break;
      directives.consider(more);
      currentLine++;
      // a comment line inside a continuation is skipped, indented or not
      if (trimLeftSpace(more).startsWith('#')) continue;
      if (trimLeftSpace(more) === '') {
        hasEmptyContinuationLine = true;
        continue;
      }
      let continued: string;
      [continued, isEndOfLine] = directives.trimContinuation(more);
      line += continued;
    }
    if (hasEmptyContinuationLine) warnings.push(`[WARNING]: Empty continuation line found in:\n    ${line}`);

    const node = parseLine(line, directives.escapeToken);
    node.startLine = startLine;
    node.endLine = currentLine;
    if (node.next) {
      node.next.startLine = startLine;
      node.next.endLine = currentLine;
    }
    nodes.push(node);
  }
  if (warnings.length > 0) warnings.push('[WARNING]: Empty continuation lines will become errors in a future release.');
  if (nodes.length === 0) throw new DockerfileError('file with no instructions');
  // the scanner's error comes last: the lines before the long one were parsed (and may have failed)
  if (lines.tooLong) throw new DockerfileError(`dockerfile line greater than max allowed size of ${MAX_LINE_BYTES}`);
  return { escapeToken: directives.escapeToken, nodes, warnings };
}

// Parser directives: only before the first line that is not one, each at most once.
class Directives {
  escapeToken: '\\' | '`' = '\\';
  private continuation = continuationPattern('\\');
  private done = false;
  private readonly seen = new Set<string>();

  consider(line: string): void {
    if (this.done) return;
    const m = DIRECTIVE.exec(line);
    const key = m?.[1].toLowerCase();
    if (!m || key === undefined || !KNOWN_DIRECTIVES.has(key)) {
      this.done = true;
      return;
    }
    if (this.seen.has(key)) throw new DockerfileError(`only one ${key} parser directive can be used`);
    this.seen.add(key);
    if (key !== 'escape') return;
    const token = m[2];
    if (token !== '`' && token !== '\\') throw new DockerfileError(`invalid escape token '${token}' does not match \` or \\`);
    this.escapeToken = token;
    this.continuation = continuationPattern(token);
  }

  /** the line without its continuation token, and whether the instruction ends here */
  trimContinuation(line: string): [string, boolean] {
    if (!this.continuation.test(line)) return [line, true];
    return [line.replace(this.continuation, '$1'), false];
  }
}

// The escape token last on the line (spaces and tabs may follow), unless it is escaped itself:
// dockerd's pattern only looks one character back, so `a\\\` does not continue.
function continuationPattern(token: string): RegExp {
  const t = `\\${token}`;
  return new RegExp(`([^${t}])${t}[ \\t]*$|^${t}[ \\t]*$`);
}

function trimLeftSpace(s: string): string {
  let i = 0;
  for (const ch of s) {
    if (!isGoSpace(ch)) break;
    i += ch.length;
  }
  return s.slice(i);
}

// bufio.Scanner's lines: split at \n, one trailing \r dropped, no empty last line; a line longer
// than the scanner's buffer ends the scan.
class LineScanner {
  tooLong = false;
  private readonly lines: string[];
  private index = 0;

  constructor(text: string) {
    this.lines = text.split('\n');
    if (this.lines[this.lines.length - 1] === '') this.lines.pop();
  }

  next(): string | undefined {
    if (this.tooLong || this.index >= this.lines.length) return undefined;
    const line = this.lines[this.index++];
    if (Buffer.byteLength(line, 'utf8') > MAX_LINE_BYTES) {
      this.tooLong = true;
      return undefined;
    }
    return line.endsWith('\r') ? line.slice(0, -1) : line;
  }
}
