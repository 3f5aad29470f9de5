// Go's unicode.IsSpace: Unicode's White_Space property (with U+0085, without U+FEFF, unlike JS's \s).

const SPACE = /^\p{White_Space}$/u;

export function isGoSpace(ch: string): boolean {
  return SPACE.test(ch);
}
