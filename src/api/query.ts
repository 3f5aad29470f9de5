// Query parameters read as dockerd reads them (httputils.BoolValue).

/** "", "0", "no", "false" and "none" are false; anything else present is true. */
export function queryBool(query: URLSearchParams, name: string): boolean {
  const v = (query.get(name) ?? '').trim().toLowerCase();
  return !(v === '' || v === '0' || v === 'no' || v === 'false' || v === 'none');
}
