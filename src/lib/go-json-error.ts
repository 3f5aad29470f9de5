// Go's encoding/json syntax errors for the inputs clients get wrong most (a word where JSON was
// expected), since dockerd's messages quote them: a bad first character, or a misspelt literal.
// Anything else gets a plain "invalid JSON" with JavaScript's reason.

const LITERALS: Record<string, string> = { n: 'null', t: 'true', f: 'false' };

export function goJsonSyntaxError(text: string): string {
  const at = text.search(/\S/);
  if (at < 0) return 'unexpected end of JSON input';
  const first = text[at];
  const literal = LITERALS[first];
  if (literal !== undefined) {
    for (let i = 1; i < literal.length; i++) {
      const ch = text[at + i];
      if (ch === undefined) return 'unexpected end of JSON input';
      if (ch !== literal[i]) return `invalid character ${quoteChar(ch)} in literal ${literal} (expecting ${quoteChar(literal[i])})`;
    }
  } else if (!/[[{"\-0-9]/.test(first)) {
    return `invalid character ${quoteChar(first)} looking for beginning of value`;
  }
  try {
    JSON.parse(text);
    return 'invalid JSON';
  } catch (err) {
    return `invalid JSON: ${(err as Error).message}`;
  }
}

/** Go's quoteChar: 'x', with ' and \ escaped. */
function quoteChar(ch: string): string {
  if (ch === "'") return "'\\''";
  if (ch === '"') return `'"'`;
  return `'${ch}'`;
}
