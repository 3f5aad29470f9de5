// Go's path.Match: `*` is any run of characters but `/`, `?` one such character, `[...]` a class.

export function globMatch(pattern: string, name: string): boolean {
  return globToRegExp(pattern).test(name);
}

function globToRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '*') re += '[^/]*';
    else if (ch === '?') re += '[^/]';
    else if (ch === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) return /(?!)/; // a malformed pattern matches nothing, as path.Match errors
      const body = pattern.slice(i + 1, end).replace(/^\^/, '!').replace(/\\/g, '\\\\');
      re += body.startsWith('!') ? `[^/${body.slice(1)}]` : `[${body}]`;
      i = end;
    } else if (ch === '\\' && i + 1 < pattern.length) re += escape(pattern[++i]);
    else re += escape(ch);
  }
  return new RegExp(`^${re}$`);
}

function escape(ch: string): string {
  return ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
