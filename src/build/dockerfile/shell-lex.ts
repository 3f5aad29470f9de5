// buildkit's shell lexer (frontend/dockerfile/shell, as moby v20.10 vendors it): quotes, escapes
// and $VAR, ${VAR}, ${VAR:-word}, ${VAR:+word}, ${VAR?msg}, ${VAR:?msg} in a Dockerfile word.
// That version has no ${VAR-word} nor ${VAR+word} ("missing ':' in substitution"). Unix rules:
// names are compared case-sensitively.
import { DockerfileError } from './dockerfile-error.js';
import { goQuote } from './go-quote.js';
import { isGoSpace } from './go-space.js';

/** `KEY=value` entries, a later one winning and an entry without `=` setting KEY to '' (as
 * dockerd passes a container's Env plus the build args); or names to values. */
export type ShellEnv = readonly string[] | ReadonlyMap<string, string>;

export type EscapeToken = '\\' | '`';

/** The word with its variables expanded and its quotes removed (ProcessWord). */
export function processWord(word: string, env: ShellEnv, escapeToken: EscapeToken): string {
  return new ShellWord(word, env, escapeToken).process()[0];
}

/** The same, split into words at unquoted spaces after expansion (ProcessWords, used by EXPOSE). */
export function processWords(word: string, env: ShellEnv, escapeToken: EscapeToken): string[] {
  return new ShellWord(word, env, escapeToken).process()[1];
}

const EOF = undefined;

class ShellWord {
  private readonly chars: string[];
  private pos = 0;
  private readonly env: ReadonlyMap<string, string>;

  constructor(
    private readonly source: string,
    env: ShellEnv,
    private readonly escapeToken: string,
  ) {
    this.chars = Array.from(source);
    // Go's text/scanner skips a byte order mark at the start
    if (this.chars[0] === '\uFEFF') this.pos = 1;
    this.env = env instanceof Map ? env : buildEnvs(env as readonly string[]);
  }

  process(): [string, string[]] {
    try {
      return this.processStopOn(EOF);
    } catch (err) {
      if (!(err instanceof LexError)) throw err;
      throw new DockerfileError(`failed to process ${goQuote(this.source)}: ${err.message}`);
    }
  }

  private peek(): string | undefined {
    return this.chars[this.pos];
  }

  private next(): string | undefined {
    return this.chars[this.pos++];
  }

  // Up to stopChar (consumed) or the end of the word.
  private processStopOn(stopChar: string | undefined): [string, string[]] {
    let result = '';
    const words = new Words();
    while (this.peek() !== EOF) {
      let ch = this.peek() as string;
      if (stopChar !== EOF && ch === stopChar) {
        this.pos++;
        return [result, words.all()];
      }
      if (ch === "'" || ch === '"' || ch === '$') {
        const part = ch === "'" ? this.processSingleQuote() : ch === '"' ? this.processDoubleQuote() : this.processDollar();
        result += part;
        // an expansion splits at its spaces; quoted text does not
        if (ch === '$') words.addString(part);
        else words.addRaw(part);
        continue;
      }
      this.pos++;
      if (ch === this.escapeToken) {
        // the escape token escapes the next character; at the end it is dropped
        const escaped = this.next();
        if (escaped === EOF) break;
        ch = escaped;
        words.addRaw(ch);
      } else words.addChar(ch);
      result += ch;
    }
    if (stopChar !== EOF) throw new LexError(`unexpected end of statement while looking for matching ${stopChar}`);
    return [result, words.all()];
  }

  // Everything to the next single quote, as is: nothing escapes in there.
  private processSingleQuote(): string {
    this.pos++;
    let result = '';
    for (;;) {
      const ch = this.next();
      if (ch === EOF) throw new LexError('unexpected end of statement while looking for matching single-quote');
      if (ch === "'") return result;
      result += ch;
    }
  }

  // To the next double quote, expanding $; the escape token escapes only ", $ and itself.
  private processDoubleQuote(): string {
    this.pos++;
    let result = '';
    for (;;) {
      const peeked = this.peek();
      if (peeked === EOF) throw new LexError('unexpected end of statement while looking for matching double-quote');
      if (peeked === '"') {
        this.pos++;
        return result;
      }
      if (peeked === '$') {
        result += this.processDollar();
        continue;
      }
      let ch = this.next() as string;
      if (ch === this.escapeToken) {
        const after = this.peek();
        if (after === EOF) continue; // dropped at the end (then the missing quote is the error)
        if (after === '"' || after === '$' || after === this.escapeToken) ch = this.next() as string;
      }
      result += ch;
    }
  }

  private processDollar(): string {
    this.pos++;
    if (this.peek() !== '{') {
      const name = this.processName();
      return name === '' ? '$' : (this.env.get(name) ?? '');
    }
    this.pos++;
    const first = this.peek();
    if (first === EOF) throw new LexError("syntax error: missing '}'");
    if (first === '{' || first === '}' || first === ':') throw new LexError('syntax error: bad substitution');
    const name = this.processName();
    const ch = this.next();
    if (ch === '}') return this.env.get(name) ?? '';
    if (ch === '?') {
      const word = this.wordToBrace();
      const value = this.env.get(name);
      if (value === undefined) throw new LexError(`${name}: ${word || 'is not allowed to be unset'}`);
      return value;
    }
    if (ch !== ':') throw new LexError("missing ':' in substitution");
    const modifier = this.next();
    const word = this.wordToBrace();
    const value = this.env.get(name);
    switch (modifier) {
      case '+':
        return value ? word : '';
      case '-':
        return value || word;
      case '?':
        if (value === undefined) throw new LexError(`${name}: ${word || 'is not allowed to be unset'}`);
        if (value === '') throw new LexError(`${name}: ${word || 'is not allowed to be empty'}`);
        return value;
      default:
        throw new LexError(`unsupported modifier (${modifier as string}) in substitution`);
    }
  }

  // The word of ${name:-word} and the like, up to its closing brace.
  private wordToBrace(): string {
    try {
      return this.processStopOn('}')[0];
    } catch (err) {
      if (err instanceof LexError && this.peek() === EOF) throw new LexError("syntax error: missing '}'");
      throw err;
    }
  }

  // A name: letters, digits and _; or all the digits of a positional parameter; or one special
  // parameter character. Neither of the latter two is ever set.
  private processName(): string {
    let name = '';
    for (let ch = this.peek(); ch !== EOF; ch = this.peek()) {
      if (name === '' && DIGIT.test(ch)) {
        while (this.peek() !== EOF && DIGIT.test(this.peek() as string)) name += this.next();
        return name;
      }
      if (name === '' && SPECIAL_PARAMS.has(ch)) return this.next() as string;
      if (!LETTER.test(ch) && !DIGIT.test(ch) && ch !== '_') break;
      name += this.next();
    }
    return name;
  }
}

class LexError extends Error {}

// unicode.IsDigit and unicode.IsLetter
const DIGIT = /^\p{Nd}$/u;
const LETTER = /^\p{L}$/u;
const SPECIAL_PARAMS = new Set(['@', '*', '#', '?', '-', '$', '!', '0']);

// The words of ProcessWords: characters from expansions split at spaces, quoted or escaped ones not.
class Words {
  private word = '';
  private readonly words: string[] = [];
  private inWord = false;

  addChar(ch: string): void {
    if (isGoSpace(ch)) {
      if (this.inWord && this.word !== '') {
        this.words.push(this.word);
        this.word = '';
        this.inWord = false;
      }
    } else this.addRaw(ch);
  }

  addRaw(s: string): void {
    this.word += s;
    this.inWord = true;
  }

  addString(s: string): void {
    for (const ch of s) this.addChar(ch);
  }

  all(): string[] {
    if (this.word !== '') {
      this.words.push(this.word);
      this.word = '';
      this.inWord = false;
    }
    return this.words;
  }
}

function buildEnvs(env: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const entry of env) {
    const eq = entry.indexOf('=');
    if (eq < 0) map.set(entry, '');
    else map.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return map;
}
