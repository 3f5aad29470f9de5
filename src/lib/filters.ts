// The `filters` query parameter as dockerd reads it (api/types/filters): a JSON object mapping each
// key to {"value": true, ...}, or the legacy form mapping each key to a list of values.
import { invalidParameter } from '../errors.js';

export class FilterArgs {
  private readonly fields: ReadonlyMap<string, ReadonlySet<string>>;

  private constructor(fields: Map<string, Set<string>>) {
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
    const fields = new Map<string, Set<string>>();
    for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
      fields.set(key, new Set(filterValues(key, value)));
    }
    return new FilterArgs(fields);
  }

  get size(): number {
    return this.fields.size;
  }

  has(key: string): boolean {
    return this.fields.has(key);
  }

  values(key: string): string[] {
    return [...(this.fields.get(key) ?? [])];
  }

  /** True when the key is absent, or `source` is one of its values. */
  exactMatch(key: string, source: string): boolean {
    const values = this.fields.get(key);
    return values === undefined || values.has(source);
  }

  /** True when the key is absent, or one of its values equals `source` or is a prefix of it. */
  fuzzyMatch(key: string, source: string): boolean {
    const values = this.fields.get(key);
    if (values === undefined || values.has(source)) return true;
    for (const prefix of values) if (source.startsWith(prefix)) return true;
    return false;
  }

  /** Every `k` or `k=v` value of the key must be satisfied by `attributes` (dockerd's MatchKVList). */
  matchKeyValues(key: string, attributes: Readonly<Record<string, string>>): boolean {
    const values = this.fields.get(key);
    if (values === undefined) return true;
    if (Object.keys(attributes).length === 0) return false;
    for (const value of values) {
      const eq = value.indexOf('=');
      const k = eq < 0 ? value : value.slice(0, eq);
      if (!Object.hasOwn(attributes, k)) return false;
      if (eq >= 0 && attributes[k] !== value.slice(eq + 1)) return false;
    }
    return true;
  }
}

function filterValues(key: string, value: unknown): string[] {
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.every(([, v]) => typeof v === 'boolean')) return entries.filter(([, v]) => v).map(([k]) => k);
  }
  throw invalidParameter(`invalid filters: the value of "${key}" must be a list of strings or an object of booleans`);
}
