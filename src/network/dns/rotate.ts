// Several records of one name take turns coming first, as Docker shuffles them: a client that takes
// the first spreads its connections.

/** `list` with its first `turn % length` items moved to the end; `list` itself when nothing moves. */
export function rotate<T>(list: readonly T[], turn: number): readonly T[] {
  if (list.length < 2) return list;
  const k = turn % list.length;
  return k === 0 ? list : [...list.slice(k), ...list.slice(0, k)];
}
