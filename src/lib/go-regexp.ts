// Go's regexp.Compile as far as berth needs it (the log options labels-regex and env-regex): the
// pattern is compiled by JavaScript's RegExp, whose syntax the patterns people write share with
// Go's, and a pattern that fails is worded as Go's parser words the same failure, for those both
// see alike ("error parsing regexp: missing closing ): `(`"); another failure keeps JavaScript's
// reason in Go's form.

/** A pattern that does not compile, with Go's message. */
export class GoRegexpError extends Error {}

export function compileGoRegexp(pattern: string): RegExp {
  try {
    return new RegExp(pattern);
  } catch (err) {
    throw new GoRegexpError(`error parsing regexp: ${goReason(pattern, (err as Error).message)}`);
  }
}

/** Go's syntax.Error text (code and the part of the pattern it names) for V8's message. */
function goReason(pattern: string, message: string): string {
  if (message.endsWith(': Unterminated group')) return `missing closing ): \`${pattern}\``;
  if (message.endsWith(": Unmatched ')'")) return `unexpected ): \`${pattern}\``;
  if (message.endsWith(': Unterminated character class')) return `missing closing ]: \`${pattern.slice(unclosedClassStart(pattern))}\``;
  if (message.endsWith(': \\ at end of pattern')) return 'trailing backslash at end of expression: ``';
  const reason = message.slice(message.lastIndexOf(': ') + 2);
  return `${reason.charAt(0).toLowerCase()}${reason.slice(1)}: \`${pattern}\``;
}

/** Where the class left open begins: Go's rules (escapes, a `]` first in a class is literal). */
function unclosedClassStart(pattern: string): number {
  let start = -1;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
    } else if (start < 0 && c === '[') {
      start = i;
      // `[]...]` and `[^]...]`: that first `]` is a member
      if (pattern[i + 1] === '^') i++;
      if (pattern[i + 1] === ']') i++;
    } else if (start >= 0 && c === ']') {
      start = -1;
    }
  }
  return Math.max(start, 0);
}
