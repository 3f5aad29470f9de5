// buildkit's splitCommand: an instruction line's keyword, its leading `--flags` and the rest.
import { isGoSpace } from './go-space.js';

// Go's reWhitespace: the separator of keyword and arguments (and of whitespace-delimited words)
export const WHITESPACE_RUN = /[\t\v\f\r ]+/;

interface SplitCommand {
  keyword: string;
  flags: string[];
  rest: string;
}

export function splitCommand(line: string): SplitCommand {
  const trimmed = goTrimSpace(line);
  const at = WHITESPACE_RUN.exec(trimmed);
  const keyword = (at ? trimmed.slice(0, at.index) : trimmed).toLowerCase();
  if (!at) return { keyword, flags: [], rest: '' };
  const { flags, rest } = extractFlags(trimmed.slice(at.index + at[0].length));
  return { keyword, flags, rest: goTrimSpace(rest) };
}

/** strings.TrimSpace */
export function goTrimSpace(s: string): string {
  const chars = Array.from(s);
  let start = 0;
  let end = chars.length;
  while (start < end && isGoSpace(chars[start])) start++;
  while (end > start && isGoSpace(chars[end - 1])) end--;
  return chars.slice(start, end).join('');
}

// extractBuilderFlags. It walks bytes, not characters: a byte of a multi-byte character lands in
// a flag as the Latin-1 character of that value ("--fé" is read "--fÃ©"), and 0x85 or 0xA0
// inside a character counts as a space, as dockerd does.
function extractFlags(line: string): { flags: string[]; rest: string } {
  const bytes = Buffer.from(line, 'utf8');
  const n = bytes.length;
  const flags: string[] = [];
  const remainder = (pos: number) => ({ flags, rest: bytes.subarray(pos).toString('utf8') });
  let phase: 'spaces' | 'word' | 'quote' = 'spaces';
  let word = '';
  let quote = 0;
  let blankOk = false;
  for (let pos = 0; pos <= n; pos++) {
    const ch = pos < n ? bytes[pos] : 0;
    if (phase === 'spaces') {
      if (pos === n) break;
      if (isByteSpace(ch)) continue;
      // only a word that starts with -- is a flag
      if (ch !== 0x2d || pos + 1 === n || bytes[pos + 1] !== 0x2d) return remainder(pos);
      phase = 'word';
    }
    if (pos === n) {
      if (word !== '--' && (blankOk || word.length > 0)) flags.push(word);
      break;
    }
    let c = ch;
    if (phase === 'word') {
      if (isByteSpace(c)) {
        phase = 'spaces';
        if (word === '--') return remainder(pos);
        if (blankOk || word.length > 0) flags.push(word);
        word = '';
        blankOk = false;
        continue;
      }
      if (c === 0x27 || c === 0x22) {
        quote = c;
        blankOk = true;
        phase = 'quote';
        continue;
      }
      if (c === 0x5c) {
        if (pos + 1 === n) continue; // a backslash at the end is dropped
        c = bytes[++pos];
      }
      word += String.fromCharCode(c);
      continue;
    }
    if (c === quote) {
      phase = 'word';
      continue;
    }
    if (c === 0x5c) {
      if (pos + 1 === n) {
        phase = 'word';
        continue;
      }
      c = bytes[++pos];
    }
    word += String.fromCharCode(c);
  }
  return { flags, rest: '' };
}

// unicode.IsSpace(rune(b)) of a byte
function isByteSpace(b: number): boolean {
  return (b >= 0x09 && b <= 0x0d) || b === 0x20 || b === 0x85 || b === 0xa0;
}
