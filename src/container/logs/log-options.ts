// The log drivers berth has and their options, as dockerd 20.10's json-file, local, syslog and
// journald drivers take them (daemon/logger/jsonfilelog, local, syslog, journald): option names
// are checked at create (and syslog's values, as its ValidateLogOpt does), the rest when the
// container starts ("failed to initialize logging driver: ..."). Every driver but none also takes
// dockerd's own options: mode, max-buffer-size, and the local cache's cache-disabled,
// cache-max-file, cache-max-size and cache-compress (daemon/logger/loggerutils/cache: only
// cache-disabled's value is checked, and 20.10's cache never reads the other three). At max-size
// the file becomes <log>.1 (older ones shift up to max-file - 1, compressed with compress) and a
// new one starts (rotating-log-file.ts). json-file keeps one unlimited file by default; local 5
// files of 20 MB, compressed.
import { EngineError, invalidParameter } from '../../errors.js';
import { parseGoBool } from '../../lib/go-bool.js';
import { SYSLOG_OPTIONS, SyslogOptionError, validateSyslogOptions } from './syslog-options.js';

/** the local cache's options, which every driver takes (and only syslog uses) */
export const CACHE_OPTIONS = ['cache-disabled', 'cache-max-file', 'cache-max-size', 'cache-compress'];

const COMMON_OPTIONS = ['mode', 'max-buffer-size', ...CACHE_OPTIONS];

export const LOG_DRIVER_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  'json-file': [...COMMON_OPTIONS, 'max-file', 'max-size', 'compress', 'labels', 'labels-regex', 'env', 'env-regex', 'tag'],
  local: [...COMMON_OPTIONS, 'max-file', 'max-size', 'compress'],
  syslog: [...COMMON_OPTIONS, ...SYSLOG_OPTIONS],
  journald: [...COMMON_OPTIONS, 'labels', 'labels-regex', 'env', 'env-regex', 'tag'],
  none: [],
};

/** The drivers /info lists among its plugins, as dockerd lists the ones it has registered (none is not one of them). */
export const LOG_DRIVERS: readonly string[] = Object.keys(LOG_DRIVER_OPTIONS).filter((d) => d !== 'none').sort();

/** The drivers `docker logs` can't read, and whose output goes to a local cache that it reads instead. */
export const CACHED_DRIVERS: readonly string[] = ['syslog'];

/** validateLogCacheOpts: cache-disabled must be a boolean. */
export function validateCacheOptions(opts: Readonly<Record<string, string>>): void {
  const disabled = opts['cache-disabled'];
  if (disabled && parseGoBool(disabled) === undefined) throw invalidParameter(`invalid value for option cache-disabled: ${disabled}`);
}

/** ShouldUseCache: on unless cache-disabled says otherwise. */
export function cacheEnabled(opts: Readonly<Record<string, string>>): boolean {
  const disabled = opts['cache-disabled'];
  return !disabled || parseGoBool(disabled) === false;
}

/** The driver's ValidateLogOpt: the names it takes, each driver wording it its own way, then syslog's values. */
export function validateDriverOptions(driver: string, opts: Readonly<Record<string, string>>): void {
  const accepted = LOG_DRIVER_OPTIONS[driver];
  for (const key of Object.keys(opts)) {
    if (accepted.includes(key)) continue;
    if (driver === 'json-file') throw invalidParameter(`unknown log opt '${key}' for json-file log driver`);
    if (driver === 'syslog' || driver === 'journald') throw invalidParameter(`unknown log opt '${key}' for ${driver} log driver`);
    throw invalidParameter(`unknown log opt '${key}' for log driver ${driver}`);
  }
  if (driver !== 'syslog') return;
  try {
    validateSyslogOptions(opts);
  } catch (err) {
    if (err instanceof SyslogOptionError) throw invalidParameter(err.message);
    throw err;
  }
}

export interface LogRotation {
  maxSizeBytes: number;
  /** the current file and the rotated ones together */
  maxFiles: number;
  compress: boolean;
}

/** How a container's log rotates, or undefined when it grows without limit; dockerd's errors for bad values. */
export function logRotationOf(driver: string, opts: Readonly<Record<string, string>>): LogRotation | undefined {
  const fail = (message: string) => new EngineError('system', `failed to initialize logging driver: ${message}`);
  const local = driver === 'local';
  let maxSizeBytes = local ? 20 * 1024 * 1024 : -1;
  if (opts['max-size'] !== undefined) {
    const size = parseHumanSize(opts['max-size']);
    if (size === undefined) throw fail(`invalid size: '${opts['max-size']}'`);
    if (size <= 0) throw fail('max-size must be a positive number');
    maxSizeBytes = size;
  }
  let maxFiles = local ? 5 : 1;
  if (opts['max-file'] !== undefined) {
    if (!/^[+-]?\d+$/.test(opts['max-file'])) throw fail(`strconv.Atoi: parsing "${opts['max-file']}": invalid syntax`);
    maxFiles = Number(opts['max-file']);
    if (maxFiles < 1) throw fail('max-file cannot be less than 1');
  }
  let compress = local;
  if (opts.compress !== undefined) {
    const parsed = parseGoBool(opts.compress);
    if (parsed === undefined) throw fail(`strconv.ParseBool: parsing "${opts.compress}": invalid syntax`);
    compress = parsed;
    if (compress && (maxFiles === 1 || maxSizeBytes === -1)) throw fail('compress cannot be true when max-file is less than 2 or max-size is not set');
  }
  return maxSizeBytes > 0 ? { maxSizeBytes, maxFiles, compress } : undefined;
}

/** go-units FromHumanSize: decimal units (k = 1000, an "i" changes nothing), an optional "b", a fraction allowed. */
function parseHumanSize(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)*) ?([kmgtp])?i?b?$/i.exec(text);
  if (m === null) return undefined;
  const exponent = m[2] === undefined ? 0 : 'kmgtp'.indexOf(m[2].toLowerCase()) + 1;
  return Math.floor(Number(m[1]) * 1000 ** exponent);
}
