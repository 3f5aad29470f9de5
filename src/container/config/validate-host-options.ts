// The remaining HostConfig options dockerd 20.10 checks at create: restart policy (and AutoRemove),
// log driver and options, runtime, isolation, /dev/shm size, OOM score.
import { EngineError, invalidParameter } from '../../errors.js';
import type { HostConfig, LogConfig } from './types.js';
import { CACHE_OPTIONS, LOG_DRIVER_OPTIONS, validateCacheOptions, validateDriverOptions } from '../logs/log-options.js';

/** The runtimes berth has. */
export const RUNTIMES = ['runc'] as const;


export function validateRestartPolicy(hc: HostConfig): void {
  const name = hc.RestartPolicy?.Name ?? '';
  const retries = hc.RestartPolicy?.MaximumRetryCount ?? 0;
  if (hc.AutoRemove && name !== '' && name !== 'no') throw invalidParameter("can't create 'AutoRemove' container with restart policy");
  switch (name) {
    case 'always':
    case 'unless-stopped':
    case 'no':
      if (retries !== 0) throw invalidParameter(`maximum retry count cannot be used with restart policy '${name}'`);
      return;
    case 'on-failure':
      if (retries < 0) throw invalidParameter('maximum retry count cannot be negative');
      return;
    case '':
      return;
    default:
      throw invalidParameter(`invalid restart policy '${name}'`);
  }
}

/**
 * Fills the daemon's driver (log-driver) and, for that driver, its options under the container's
 * (log-opts), and the daemon's cache options whatever the driver, then checks the options, as
 * dockerd's mergeAndVerifyLogConfig.
 */
export function mergeLogConfig(lc: LogConfig | undefined, daemon: Required<LogConfig> = { Type: 'json-file', Config: {} }): Required<LogConfig> {
  const type = lc?.Type || daemon.Type;
  const out = { Type: type, Config: type === daemon.Type ? { ...daemon.Config, ...(lc?.Config ?? {}) } : { ...(lc?.Config ?? {}) } };
  for (const key of CACHE_OPTIONS) if (key in daemon.Config && !(key in out.Config)) out.Config[key] = daemon.Config[key];
  if (out.Type === 'none') return out;
  const mode = out.Config.mode ?? '';
  if (!['', 'blocking', 'non-blocking'].includes(mode)) throw invalidParameter(`logger: logging mode not supported: ${mode}`);
  if ('max-buffer-size' in out.Config) {
    if (mode !== 'non-blocking') throw invalidParameter("logger: max-buffer-size option is only supported with 'mode=non-blocking'");
    if (!/^\d+(\.\d+)?\s*([kmgtp]i?b?|b)?$/i.test(out.Config['max-buffer-size'])) {
      throw invalidParameter(`error parsing option max-buffer-size: invalid size: '${out.Config['max-buffer-size']}'`);
    }
  }
  validateCacheOptions(out.Config);
  if (LOG_DRIVER_OPTIONS[out.Type] === undefined) throw invalidParameter(`error looking up logging plugin ${out.Type}: plugin "${out.Type}" not found`);
  validateDriverOptions(out.Type, out.Config);
  return out;
}

/** Isolation is a decoder check in dockerd, answered with a 500 (asked). */
export function validateIsolation(hc: HostConfig): void {
  const isolation = hc.Isolation ?? '';
  if (isolation !== '' && isolation.toLowerCase() !== 'default') {
    throw new EngineError('system', `Invalid isolation: ${JSON.stringify(isolation)} - linux only supports 'default'`);
  }
}

export function validatePlatformOptions(hc: HostConfig): void {
  if ((hc.ShmSize ?? 0) < 0) throw invalidParameter('SHM size can not be less than 0');
  const oom = hc.OomScoreAdj ?? 0;
  if (oom < -1000 || oom > 1000) throw invalidParameter(`Invalid value ${oom}, range for oom score adj is [-1000, 1000]`);
  if (hc.Runtime && !(RUNTIMES as readonly string[]).includes(hc.Runtime)) throw invalidParameter(`Unknown runtime specified ${hc.Runtime}`);
  // without user-namespace remapping, only the host's user namespace exists (dockerd's UsernsMode.Valid)
  if (hc.UsernsMode && hc.UsernsMode !== 'host') throw invalidParameter(`invalid USER mode: ${hc.UsernsMode}`);
  // berth has no device drivers (GPUs): refused as dockerd refuses a request no driver serves
  for (const r of hc.DeviceRequests ?? []) {
    const caps = `[${(r.Capabilities ?? []).map((and) => `[${and.join(' ')}]`).join(' ')}]`;
    throw new EngineError('system', `could not select device driver "${r.Driver ?? ''}" with capabilities: ${caps}`);
  }
}
