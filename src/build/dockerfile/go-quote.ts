// Go's %q of a string (strconv.Quote), for messages dockerd words with it.

const SHORT_ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
};

// unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    if (SHORT_ESCAPES[ch] !== undefined) out += SHORT_ESCAPES[ch];
    else if (PRINTABLE.test(ch)) out += ch;
    else if (cp < 0x80) out += `\\x${hex(cp, 2)}`;
    // a lone surrogate stands for the invalid UTF-8 Go would have seen
    else if (cp >= 0xd800 && cp < 0xe000) out += '\\ufffd';
    else if (cp < 0x10000) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
  }
  return `${out}"`;
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}
