// Query parameters read as dockerd reads them (httputils.BoolValue and friends).

/** "", "0", "no", "false" and "none" are false; anything else present is true. */
export function queryBool(query: URLSearchParams, name: string): boolean {
  const v = (query.get(name) ?? '').trim().toLowerCase();
  return !(v === '' || v === '0' || v === 'no' || v === 'false' || v === 'none');
}

/** Like queryBool, but an absent parameter takes `fallback` (dockerd's BoolValueOrDefault). */
export function queryBoolOr(query: URLSearchParams, name: string, fallback: boolean): boolean {
  return query.has(name) ? queryBool(query, name) : fallback;
}
