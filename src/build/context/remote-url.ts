// How dockerd 20.10 tells a remote context or an ADD source apart (pkg/urlutil): an http(s) URL, or
// a git repository (git://, git@, github.com/..., or an http(s) URL ending in "git", optionally with
// a #fragment; the dot before it is a regular expression's any-character, as in dockerd).

export function isURL(s: string): boolean {
  return s.startsWith('http://') || s.startsWith('https://');
}

export function isGitURL(s: string): boolean {
  if (isURL(s) && /.git(?:#.+)?$/.test(s)) return true;
  return ['git://', 'github.com/', 'git@'].some((prefix) => s.startsWith(prefix));
}
