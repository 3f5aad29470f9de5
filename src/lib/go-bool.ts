// Booleans as dockerd's Go code reads them: strconv.ParseBool for options and labels, and
// httputils.BoolValue for query parameters.

/** Go's strconv.ParseBool; undefined for what it refuses. */
export function parseGoBool(text: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return undefined;
}

/** httputils.BoolValue: "", "0", "no", "false" and "none" are false; anything else present is true. */
export function formBool(value: string | null): boolean {
  const v = (value ?? '').trim().toLowerCase();
  return !(v === '' || v === '0' || v === 'no' || v === 'false' || v === 'none');
}
