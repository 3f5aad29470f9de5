// The one place where a CNI plugin's failure becomes an engine error. A plugin that fails exits
// non-zero with the spec's error JSON on stdout ({cniVersion, code, msg, details}, CNI 1.0.0
// section 5); one that crashes says why on stderr only; one that hangs is killed at its time limit;
// one that is missing never runs. Each is a CniPluginError named for the plugin, in the plugin's
// words as Go's types.Error prints them (`msg; details`): `bridge: failed to set bridge addr: ...`.
import { EngineError } from '../errors.js';
import type { CommandError } from './child-process.js';

export type CniCommand = 'ADD' | 'DEL' | 'CHECK';

/** what a plugin reports: the spec's error fields */
export interface CniFailure {
  code?: number;
  msg: string;
  details?: string;
}

/** Said after a plugin that could not be found, by berth or by a plugin delegating to another (IPAM). */
const SETUP_HINT = "the standard plugins come with Debian's containernetworking-plugins, which `node scripts/setup.mjs` installs";

export class CniPluginError extends EngineError {
  /** its `type`: bridge, static, portmap... */
  readonly plugin: string;
  readonly command: CniCommand;
  /**
   * The spec's code: 1 incompatible version, 2 unsupported field, 3 unknown container, 4 invalid
   * environment, 5 I/O, 6 decoding, 7 invalid configuration, 11 try again later, 100 and up the
   * plugin's own (the standard plugins say 999 for all else); undefined when the plugin gave none.
   */
  readonly code: number | undefined;
  readonly msg: string;
  readonly details: string | undefined;
  /** the DEL that undid a failed ADD, when it failed as well */
  readonly undoError: CniPluginError | undefined;

  constructor(plugin: string, command: CniCommand, failure: CniFailure, options: { undoError?: CniPluginError } = {}) {
    const parts = [failure.msg, failure.details, /^failed to find plugin "/.test(failure.msg) ? SETUP_HINT : undefined];
    const message = `${plugin}: ${parts.filter((p) => p !== undefined && p !== '').join('; ')}`;
    const undo = options.undoError?.message;
    super('system', undo === undefined ? message : `${message} (undoing the ADD failed ${undo === message ? 'the same way' : `as well: ${undo}`})`);
    this.name = 'CniPluginError';
    this.plugin = plugin;
    this.command = command;
    this.code = failure.code;
    this.msg = failure.msg;
    this.details = failure.details;
    this.undoError = options.undoError;
  }

  /** The same error, with the failure of the DEL that undid its ADD. */
  withUndoError(undoError: CniPluginError): CniPluginError {
    return new CniPluginError(this.plugin, this.command, this, { undoError });
  }
}

/** A plugin that exited non-zero: its error JSON on stdout, or else the last line of its stderr. */
export function pluginExitError(plugin: string, command: CniCommand, exitCode: number, stdout: string, stderr: string): CniPluginError {
  const reported = parseErrorJson(stdout);
  if (reported !== undefined) return new CniPluginError(plugin, command, reported);
  const lastLine = [stdout, stderr].flatMap((s) => s.split('\n')).map((l) => l.trim()).filter((l) => l !== '').at(-1);
  return new CniPluginError(plugin, command, { msg: lastLine ?? `exit status ${exitCode}` });
}

/** A plugin that did not finish: it could not start, a signal killed it, or it ran out of time. */
export function pluginRunError(plugin: string, command: CniCommand, err: CommandError, timeoutMs: number): CniPluginError {
  const msg = err.timedOut
    ? `did not finish within ${timeoutMs} ms and was killed`
    : err.signal !== null
      ? `killed by ${err.signal}`
      : `could not be started: ${err.cause instanceof Error ? err.cause.message : err.message}`;
  return new CniPluginError(plugin, command, { msg });
}

/** A plugin berth could not find: libcni's words, with the setup that installs the standard ones. */
export function pluginNotFound(plugin: string, command: CniCommand, pluginDirs: readonly string[]): CniPluginError {
  return new CniPluginError(plugin, command, { msg: `failed to find plugin ${JSON.stringify(plugin)} in path [${pluginDirs.join(' ')}]` });
}

function parseErrorJson(stdout: string): CniFailure | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { code, msg, details } = parsed as Record<string, unknown>;
  if (typeof msg !== 'string') return undefined;
  return {
    ...(typeof code === 'number' ? { code } : {}),
    msg,
    ...(typeof details === 'string' && details !== '' ? { details } : {}),
  };
}
