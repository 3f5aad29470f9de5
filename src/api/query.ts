// Query parameters read as dockerd reads them (httputils.BoolValue, strconv.Atoi).
import { invalidParameter } from '../errors.js';
import { formBool } from '../lib/go-bool.js';

/** "", "0", "no", "false" and "none" are false; anything else present is true. */
export function queryBool(query: URLSearchParams, name: string): boolean {
  return formBool(query.get(name));
}

/** Go's strconv.Atoi, with its message, as dockerd answers a bad number. */
export function atoi(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw invalidParameter(`strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`);
  return Number(text);
}

/** The h and w of a resize (container or exec), as dockerd reads them. */
export function terminalSize(query: URLSearchParams): { height: number; width: number } {
  return { height: atoi(query.get('h') ?? ''), width: atoi(query.get('w') ?? '') };
}
