// Go's path/filepath helpers on Linux, where their results differ from node:path's: Clean drops a
// trailing slash and makes '' into '.', Dir cleans what is before the last slash ("a/b/" → "a/b").

/** Go's filepath.Clean. */
export function goClean(p: string): string {
  if (p === '') return '.';
  const rooted = p.startsWith('/');
  const parts: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
      else if (!rooted) parts.push('..');
      continue;
    }
    parts.push(part);
  }
  const joined = parts.join('/');
  if (rooted) return `/${joined}`;
  return joined === '' ? '.' : joined;
}

/** Go's filepath.Dir. */
export function goDir(p: string): string {
  return goClean(p.slice(0, p.lastIndexOf('/') + 1));
}
