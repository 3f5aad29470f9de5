// The `filters` query parameter as dockerd reads it (api/types/filters): a JSON object mapping each
// key to {"value": true, ...}, or the legacy form mapping each key to a list of values.
import { invalidParameter } from '../errors.js';

export class FilterArgs {
  // Each key's values with their booleans, as Go's map[string]map[string]bool: an empty map means
  // no filter on that key, a value mapped to false matches nothing exactly, yet still counts as a
  // prefix and as a key=value term (dockerd's FuzzyMatch and MatchKVList range over every value).
  private readonly fields: ReadonlyMap<string, ReadonlyMap<string, boolean>>;

  private constructor(fields: Map<string, Map<string, boolean>>) {
    this.fields = fields;
  }

  static empty(): FilterArgs {
    return new FilterArgs(new Map());
  }

  static fromJson(text: string | null): FilterArgs {
    if (text === null || text === '') return FilterArgs.empty();
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      throw invalidParameter(`invalid filters: ${(err as Error).message}`, err);
    }
    if (raw === null) return FilterArgs.empty();
    if (typeof raw !== 'object' || Array.isArray(raw)) throw invalidParameter('invalid filters: expected a JSON object');
    const fields = new Map<string, Map<string, boolean>>();
    for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
      fields.set(key, filterValues(key, value));
    }
    return new FilterArgs(fields);
  }

  get size(): number {
    return this.fields.size;
  }

  keys(): string[] {
    return [...this.fields.keys()];
  }

  /** Refuses keys outside `accepted`, as dockerd's Validate does. */
  validate(accepted: ReadonlySet<string>): void {
    for (const key of this.fields.keys()) if (!accepted.has(key)) throw invalidParameter(`invalid filter '${key}'`);
  }

  has(key: string): boolean {
    return this.fields.has(key);
  }

  /** Every value given for the key, whatever its boolean. */
  values(key: string): string[] {
    return [...(this.fields.get(key)?.keys() ?? [])];
  }

  /** True when the key sets no filter, or `source` is one of its values. */
  exactMatch(key: string, source: string): boolean {
    const values = this.fields.get(key);
    if (values === undefined || values.size === 0) return true;
    return values.get(source) === true;
  }

  /** True when exactMatch holds, or one of the key's values is a prefix of `source`. */
  fuzzyMatch(key: string, source: string): boolean {
    if (this.exactMatch(key, source)) return true;
    for (const prefix of this.fields.get(key)?.keys() ?? []) if (source.startsWith(prefix)) return true;
    return false;
  }

  /** Go's Args.Match: exactMatch, or one of the key's values, as a regular expression, found in `source` (one that does not compile matches nothing). */
  regexpMatch(key: string, source: string): boolean {
    if (this.exactMatch(key, source)) return true;
    return this.values(key).some((pattern) => {
      try {
        return new RegExp(pattern).test(source);
      } catch {
        return false;
      }
    });
  }

  /** Every `k` or `k=v` value of the key must be satisfied by `attributes` (dockerd's MatchKVList). */
  matchKeyValues(key: string, attributes: Readonly<Record<string, string>>): boolean {
    const values = this.fields.get(key);
    if (values === undefined || values.size === 0) return true;
    if (Object.keys(attributes).length === 0) return false;
    for (const value of values.keys()) {
      const eq = value.indexOf('=');
      const k = eq < 0 ? value : value.slice(0, eq);
      if (!Object.hasOwn(attributes, k)) return false;
      if (eq >= 0 && attributes[k] !== value.slice(eq + 1)) return false;
    }
    return true;
  }
}

/** A key's value in either form: {"v": true, ...}, the legacy ["v", ...], or null for none. */
function filterValues(key: string, value: unknown): Map<string, boolean> {
  if (value === null) return new Map();
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return new Map(value.map((v) => [v, true]));
  if (typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.every(([, v]) => typeof v === 'boolean')) return new Map(entries as Array<[string, boolean]>);
  }
  throw invalidParameter(`invalid filters: the value of "${key}" must be a list of strings or an object of booleans`);
}
