// One logical Dockerfile line (continuations joined) into a node: buildkit's newNodeFromLine and
// the per-keyword line parsers of its parser/line_parsers.go.
import { DockerfileError } from './dockerfile-error.js';
import { goQuote } from './go-quote.js';
import { isGoSpace } from './go-space.js';
import type { DockerfileNode } from './parse-dockerfile.js';
import { splitCommand, WHITESPACE_RUN } from './split-command.js';

interface LineArgs {
  args: string[];
  json: boolean;
  next?: DockerfileNode;
}

type LineParser = (rest: string, escapeToken: string) => LineArgs;

const NOT_STRING_ARRAY = 'when using JSON array syntax, arrays must be comprised of strings only';

const LINE_PARSERS: Record<string, LineParser> = {
  add: parseMaybeJsonToList,
  arg: (rest, escapeToken) => plain(parseWords(rest, escapeToken)),
  cmd: parseMaybeJson,
  copy: parseMaybeJsonToList,
  entrypoint: parseMaybeJson,
  env: (rest, escapeToken) => plain(parseNameVal(rest, 'ENV', escapeToken)),
  expose: (rest) => plain(whitespaceDelimited(rest)),
  from: (rest) => plain(whitespaceDelimited(rest)),
  healthcheck: parseHealthConfig,
  label: (rest, escapeToken) => plain(parseNameVal(rest, 'LABEL', escapeToken)),
  maintainer: (rest) => plain(rest === '' ? [] : [rest]),
  onbuild: parseSubCommand,
  run: parseMaybeJson,
  shell: parseMaybeJson,
  stopsignal: (rest) => plain(rest === '' ? [] : [rest]),
  user: (rest) => plain(rest === '' ? [] : [rest]),
  volume: parseMaybeJsonToList,
  workdir: (rest) => plain(rest === '' ? [] : [rest]),
};

/** Lines are left 0: the caller knows them. Throws DockerfileError with buildkit's bare message. */
export function parseLine(line: string, escapeToken: string): DockerfileNode {
  const { keyword, flags, rest } = splitCommand(line);
  // an unknown keyword parses (with one empty argument, as parseIgnore); instructions refuse it
  const parsed = Object.hasOwn(LINE_PARSERS, keyword) ? LINE_PARSERS[keyword](rest, escapeToken) : plain(['']);
  return { keyword, flags, original: line, startLine: 0, endLine: 0, ...parsed };
}

function plain(args: string[]): LineArgs {
  return { args, json: false };
}

// ONBUILD RUN x: the trigger is a node of its own; the arguments are its keyword and arguments.
function parseSubCommand(rest: string, escapeToken: string): LineArgs {
  if (rest === '') return plain([]);
  const next = parseLine(rest, escapeToken);
  return { args: [next.keyword, ...next.args], json: false, next };
}

// Words split at spaces outside quotes; quotes and escapes are kept for the shell lexer.
function parseWords(rest: string, escapeToken: string): string[] {
  const chars = Array.from(rest);
  const n = chars.length;
  const words: string[] = [];
  let phase: 'spaces' | 'word' | 'quote' = 'spaces';
  let word = '';
  let quote = '';
  let blankOk = false;
  for (let i = 0; i <= n; i++) {
    let ch = chars[i];
    if (phase === 'spaces') {
      if (i === n) break;
      if (isGoSpace(ch)) continue;
      phase = 'word';
    }
    if (i === n) {
      if (blankOk || word !== '') words.push(word);
      break;
    }
    if (phase === 'word') {
      if (isGoSpace(ch)) {
        phase = 'spaces';
        if (blankOk || word !== '') words.push(word);
        word = '';
        blankOk = false;
        continue;
      }
      if (ch === "'" || ch === '"') {
        quote = ch;
        blankOk = true;
        phase = 'quote';
      }
      if (ch === escapeToken) {
        if (i + 1 === n) continue; // an escape token at the end is dropped
        word += ch;
        ch = chars[++i];
      }
      word += ch;
      continue;
    }
    if (ch === quote) phase = 'word';
    // nothing escapes inside single quotes
    if (ch === escapeToken && quote !== "'") {
      if (i + 1 === n) {
        phase = 'word';
        continue;
      }
      word += ch;
      ch = chars[++i];
    }
    word += ch;
  }
  return words;
}

// ENV and LABEL: `KEY value` (the legacy form, one pair, the value the rest of the line as
// written) or `k=v k2="v 2"`, told apart by whether the first word has an `=`.
function parseNameVal(rest: string, key: string, escapeToken: string): string[] {
  const words = parseWords(rest, escapeToken);
  if (words.length === 0) return [];
  if (!words[0].includes('=')) {
    const at = WHITESPACE_RUN.exec(rest);
    if (!at) throw new DockerfileError(`${key} must have two arguments`);
    return [rest.slice(0, at.index), rest.slice(at.index + at[0].length)];
  }
  return words.flatMap((word) => {
    const eq = word.indexOf('=');
    if (eq < 0) throw new DockerfileError(`Syntax error - can't find = in ${goQuote(word)}. Must be of the form: name=value`);
    return [word.slice(0, eq), word.slice(eq + 1)];
  });
}

function whitespaceDelimited(rest: string): string[] {
  return rest === '' ? [] : rest.split(WHITESPACE_RUN);
}

function parseMaybeJson(rest: string): LineArgs {
  if (rest === '') return plain([]);
  const json = parseJsonArray(rest);
  return json ? { args: json, json: true } : plain([rest]);
}

function parseMaybeJsonToList(rest: string): LineArgs {
  const json = parseJsonArray(rest);
  return json ? { args: json, json: true } : plain(whitespaceDelimited(rest));
}

// HEALTHCHECK: the type (CMD, NONE, ...), then the command as CMD's. The type ends at the first
// space byte, as dockerd reads it.
function parseHealthConfig(rest: string): LineArgs {
  const bytes = Buffer.from(rest, 'utf8');
  let sep = 0;
  while (sep < bytes.length && !isByteSpace(bytes[sep])) sep++;
  let next = sep;
  while (next < bytes.length && isByteSpace(bytes[next])) next++;
  if (sep === 0) return plain([]);
  const cmd = parseMaybeJson(bytes.subarray(next).toString('utf8'));
  return { args: [bytes.subarray(0, sep).toString('utf8'), ...cmd.args], json: cmd.json };
}

function isByteSpace(b: number): boolean {
  return (b >= 0x09 && b <= 0x0d) || b === 0x20 || b === 0x85 || b === 0xa0;
}

// The exec form: a JSON array of strings. Like Go's json.Decoder, only the first value is read
// and whatever follows it is ignored (`CMD ["a"] b` is ["a"]). Anything that is not a JSON array
// is the shell form; an array of anything but strings is an error.
function parseJsonArray(rest: string): string[] | undefined {
  const text = rest.replace(/^\p{White_Space}+/u, '');
  if (!text.startsWith('[')) return undefined;
  const end = firstValueEnd(text);
  if (end < 0) return undefined;
  let value: unknown[];
  try {
    value = JSON.parse(text.slice(0, end)) as unknown[];
  } catch {
    return undefined;
  }
  // Go fails to decode a number past float64 (1e999): a syntax matter, so the shell form
  if (hasInfinity(value)) return undefined;
  if (!value.every((v) => typeof v === 'string')) throw new DockerfileError(NOT_STRING_ARRAY);
  return value as string[];
}

/** index just past the bracket that closes the first one, or -1 */
function firstValueEnd(text: string): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') {
      if (--depth === 0) return i + 1;
    }
  }
  return -1;
}

function hasInfinity(v: unknown): boolean {
  if (typeof v === 'number') return !Number.isFinite(v);
  if (Array.isArray(v)) return v.some(hasInfinity);
  if (v !== null && typeof v === 'object') return Object.values(v).some(hasInfinity);
  return false;
}
