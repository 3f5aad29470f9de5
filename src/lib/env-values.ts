// Environment lists (KEY=value entries) merged as dockerd merges them (moby container/env.go
// ReplaceOrAppendEnvValues): an override replaces its key's entry among the defaults where it
// stands or is appended, and an override without `=` removes its key. Only the defaults are looked
// up: two overrides of one key are both appended, as in dockerd.

/** defaults with overrides applied; neither list is changed. */
export function replaceOrAppendEnv(defaults: readonly string[], overrides: readonly string[]): string[] {
  const out: Array<string | undefined> = [...defaults];
  const index = new Map<string, number>();
  out.forEach((entry, i) => index.set(envKey(entry as string), i));
  for (const entry of overrides) {
    const i = index.get(envKey(entry));
    if (!entry.includes('=')) {
      if (i !== undefined) out[i] = undefined;
    } else if (i !== undefined) {
      out[i] = entry;
    } else {
      out.push(entry);
    }
  }
  return out.filter((entry): entry is string => entry !== undefined);
}

/** The key of KEY=value (the whole entry when it has no `=`). */
export function envKey(entry: string): string {
  const eq = entry.indexOf('=');
  return eq < 0 ? entry : entry.slice(0, eq);
}
