// daemon.json: read, checked against the option catalogue (unknown keys and keys also given as
// flags are errors, worded as dockerd words them), and merged over the flags.
import { readFileSync } from 'node:fs';
import { LOG_FORMATS, LOG_LEVELS, OPTIONS, type ConfigField, type DaemonConfig, type OptionSpec } from './daemon-config.js';

export class ConfigFileError extends Error {
  constructor(file: string, detail: string) {
    super(`unable to configure the daemon with file ${file}: ${detail}`);
    this.name = 'ConfigFileError';
  }
}

/**
 * Reads the file into the fields it sets. A missing file is no error when `required` is false
 * (the default path); an unreadable or invalid one always is.
 */
export function readConfigFile(file: string, required: boolean): Partial<DaemonConfig> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if (!required && (err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigFileError(file, (err as Error).message);
  }
  if (text.trim() === '') return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ConfigFileError(file, (err as Error).message);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new ConfigFileError(file, 'the file must hold a JSON object');
  const entries = Object.entries(raw as Record<string, unknown>);
  const unknown = entries.map(([k]) => k).filter((k) => !OPTIONS.some((o) => o.fileKey === k));
  if (unknown.length > 0) {
    throw new ConfigFileError(file, `the following directives don't match any configuration option: ${unknown.join(', ')}`);
  }
  const out: Partial<Record<ConfigField, unknown>> = {};
  for (const [key, value] of entries) {
    const spec = OPTIONS.find((o) => o.fileKey === key) as OptionSpec;
    out[spec.field] = checkValue(file, key, spec, value);
  }
  if (out.logLevel !== undefined && !(LOG_LEVELS as readonly string[]).includes(out.logLevel as string)) {
    throw new ConfigFileError(file, `invalid log-level "${String(out.logLevel)}": expected one of ${LOG_LEVELS.join(', ')}`);
  }
  if (out.logFormat !== undefined && !(LOG_FORMATS as readonly string[]).includes(out.logFormat as string)) {
    throw new ConfigFileError(file, `invalid log format "${String(out.logFormat)}": expected one of ${LOG_FORMATS.join(', ')}`);
  }
  return out as Partial<DaemonConfig>;
}

/** Fails when a key is set both on the command line and in the file, whatever the values. */
export function checkConflicts(file: string, fromFile: Partial<DaemonConfig>, fromFlags: Partial<DaemonConfig>): void {
  const conflicts: string[] = [];
  for (const spec of OPTIONS) {
    if (spec.fileKey === undefined || !(spec.field in fromFile) || !(spec.field in fromFlags)) continue;
    conflicts.push(`${spec.fileKey}: (from flag: ${show(fromFlags[spec.field])}, from file: ${show(fromFile[spec.field])})`);
  }
  if (conflicts.length > 0) {
    throw new ConfigFileError(file, `the following directives are specified both as a flag and in the configuration file: ${conflicts.join(', ')}`);
  }
}

function checkValue(file: string, key: string, spec: OptionSpec, value: unknown): unknown {
  const ok =
    spec.type === 'string[]'
      ? Array.isArray(value) && value.every((v) => typeof v === 'string')
      : spec.type === 'record'
        ? typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string')
        : typeof value === spec.type;
  if (!ok) {
    const want = spec.type === 'string[]' ? 'a list of strings' : spec.type === 'record' ? 'an object of strings' : `a ${spec.type}`;
    throw new ConfigFileError(file, `invalid value for ${key}: expected ${want}, got ${JSON.stringify(value)}`);
  }
  return value;
}

function show(v: unknown): string {
  return Array.isArray(v) ? `[${v.join(' ')}]` : String(v);
}
