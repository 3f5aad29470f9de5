// .dockerignore patterns matched as moby v20.10's pkg/fileutils does: each pattern becomes a regular
// expression (`*` and `?` stop at `/`, `**` crosses directories, `\` escapes), a path is excluded by
// the last pattern that matches it or, failing that, matches its leading directories (as many as
// the pattern has components), and a `!` pattern takes the path back. 20.10's quirks are kept: a
// pattern with `**` is tried against one prefix of the parents only ("**/foo" does not exclude
// "a/b/foo/x"), and matching is case-sensitive. (The npm package @balena/dockerignore tries every
// prefix, is case-insensitive by default and fails one of moby's own TestMatches cases, so it is
// not used.)
import { EngineError } from '../../errors.js';
import { goTrimSpace } from './dockerignore.js';
import { goClean, goDir } from './go-path.js';

interface Pattern {
  cleaned: string;
  dirs: string[];
  exclusion: boolean;
  regexp: RegExp | undefined;
}

export class PatternMatcher {
  private readonly patterns: Pattern[] = [];
  /** whether a `!` pattern is among them */
  readonly exclusions: boolean = false;

  /** Throws as NewPatternMatcher errs: a lone `!`, or a pattern filepath.Match calls malformed. */
  constructor(patterns: readonly string[]) {
    for (const raw of patterns) {
      let p = goTrimSpace(raw);
      if (p === '') continue;
      p = goClean(p);
      let exclusion = false;
      if (p.startsWith('!')) {
        if (p.length === 1) throw new EngineError('invalidParameter', 'illegal exclusion pattern: "!"');
        exclusion = true;
        this.exclusions = true;
        p = p.slice(1);
      }
      if (!isWellFormedGlob(p)) throw new EngineError('invalidParameter', 'syntax error in pattern');
      this.patterns.push({ cleaned: p, dirs: p.split('/'), exclusion, regexp: undefined });
    }
  }

  /** Whether `file` (relative to the context, `/`-separated) is excluded. */
  matches(file: string): boolean {
    let matched = false;
    const parentPath = goDir(file);
    const parentPathDirs = parentPath.split('/');
    for (const pattern of this.patterns) {
      let match = regexpOf(pattern).test(file);
      if (!match && parentPath !== '.' && pattern.dirs.length <= parentPathDirs.length) {
        match = regexpOf(pattern).test(parentPathDirs.slice(0, pattern.dirs.length).join('/'));
      }
      if (match) matched = !pattern.exclusion;
    }
    return matched;
  }
}

/** fileutils.Matches: whether `file` is excluded by `patterns`; never the context's root itself, and not with malformed patterns. */
export function matchesPatterns(file: string, patterns: readonly string[]): boolean {
  let matcher: PatternMatcher;
  try {
    matcher = new PatternMatcher(patterns);
  } catch {
    return false;
  }
  const clean = goClean(file);
  if (clean === '.') return false;
  try {
    return matcher.matches(clean);
  } catch {
    return false;
  }
}

function regexpOf(pattern: Pattern): RegExp {
  pattern.regexp ??= compile(pattern.cleaned);
  return pattern.regexp;
}

/** The pattern as moby writes its regular expression; one JavaScript rejects is as malformed as one Go rejects. */
function compile(pattern: string): RegExp {
  let re = '^';
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    if (ch === '*') {
      if (chars[i + 1] === '*') {
        i++;
        // `**/` is `**`
        if (chars[i + 1] === '/') i++;
        // `**` at the end takes everything, as in .gitignore; elsewhere any number of directories
        re += i + 1 === chars.length ? '.*' : '(.*/)?';
      } else {
        re += '[^/]*';
      }
    } else if (ch === '?') {
      re += '[^/]';
    } else if (ch === '.' || ch === '$') {
      re += `\\${ch}`;
    } else if (ch === '\\') {
      // a trailing `\` stays, escaped
      re += i + 1 < chars.length ? `\\${chars[++i]}` : '\\\\';
    } else {
      re += ch;
    }
  }
  try {
    return new RegExp(`${re}$`);
  } catch {
    throw new EngineError('invalidParameter', 'syntax error in pattern');
  }
}

/** What filepath.Match refuses: a `\` at the end, a `[` class unclosed, empty, or with a bad range. */
function isWellFormedGlob(pattern: string): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') {
      if (++i >= pattern.length) return false;
    } else if (ch === '[') {
      i++;
      if (pattern[i] === '^') i++;
      let ranges = 0;
      for (;;) {
        if (i >= pattern.length) return false;
        if (pattern[i] === ']' && ranges > 0) break;
        const lo = classChar(pattern, i);
        if (lo === undefined) return false;
        i = lo;
        if (pattern[i] === '-') {
          const hi = classChar(pattern, i + 1);
          if (hi === undefined) return false;
          i = hi;
        }
        ranges++;
      }
    }
  }
  return true;
}

/** The index after one character of a class (filepath.Match's getEsc), undefined when malformed. */
function classChar(pattern: string, i: number): number | undefined {
  if (i >= pattern.length || pattern[i] === '-' || pattern[i] === ']') return undefined;
  if (pattern[i] === '\\') return i + 1 < pattern.length ? i + 2 : undefined;
  return i + 1;
}
