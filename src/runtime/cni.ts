// The CNI plugins (bridge, static, portmap, loopback...) run as the CNI 1.0.0 spec's section 3
// says, as libcni runs them: each call is the plugin's executable with its configuration on stdin
// (cni-config.ts derives it) and the attachment in CNI_* variables, inheriting berthd's environment
// (the plugins run iptables from PATH); its result or error JSON comes back on stdout
// (cni-errors.ts translates an error). The caller keeps the ADD's result for CHECK and DEL, and runs
// no two calls for one container at once (the spec leaves that to the runtime).
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { CommandError, runCommand } from './child-process.js';
import { cniArgs, executionConfig, validateAttachment, type CniAttachment, type CniNetworkConfigList, type CniPluginConfig, type CniResult } from './cni-config.js';
import { CniPluginError, pluginExitError, pluginNotFound, pluginRunError, type CniCommand } from './cni-errors.js';
import { inNetns, isNetns } from './netns.js';

/** where Debian's containernetworking-plugins puts them */
export const DEFAULT_CNI_PLUGIN_DIRS: readonly string[] = ['/usr/lib/cni'];
const DEFAULT_TIMEOUT_MS = 30_000;
/** every exit status is an answer to read: a failed plugin's error is the JSON on its stdout */
const ANY_EXIT_STATUS = Array.from({ length: 255 }, (_, i) => i + 1);

export interface CniOptions {
  /** where plugins are looked for, in order (also CNI_PATH, for the IPAM plugins they delegate to) */
  pluginDirs?: readonly string[];
  /** the limit of one plugin call, after which it is killed; 30 s by default */
  timeoutMs?: number;
  /**
   * The network namespace (a file) that plays the host: where bridges, the host ends of veth pairs
   * and the plugins' iptables rules go. berthd's own by default; the tests give one of theirs.
   */
  hostNetns?: string;
}

export class Cni {
  private readonly pluginDirs: readonly string[];
  private readonly timeoutMs: number;
  private readonly hostNetns: string | undefined;

  constructor(opts: CniOptions = {}) {
    this.pluginDirs = opts.pluginDirs ?? DEFAULT_CNI_PLUGIN_DIRS;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.hostNetns = opts.hostNetns;
  }

  /**
   * ADD: the plugins in order, each given the one before's result as `prevResult`; the last result
   * is the attachment's. When a plugin fails, the whole list is DELeted before its error is thrown:
   * the spec wants a DEL after every ADD, failed or not, and the bridge plugin leaves its veth pair
   * behind when its IPAM plugin or a route fails.
   */
  async add(list: CniNetworkConfigList, attachment: CniAttachment): Promise<CniResult> {
    validateAttachment(list, attachment);
    const executables = await this.findAll(list, 'ADD');
    let result: CniResult | undefined;
    try {
      for (const [i, plugin] of list.plugins.entries()) {
        result = parseResult(plugin.type, await this.invoke('ADD', executables[i], list, plugin, attachment, attachment.netns, result));
      }
    } catch (err) {
      if (!(err instanceof CniPluginError)) throw err;
      // As libcni after a failed ADD, no prevResult: no result was ever complete. Once more when
      // it fails: the bridge plugin 1.1.1 fails to delete masquerading rules it never made when the
      // ADD stopped after addressing the interface (go-iptables 0.6 mistakes iptables-nft's "does
      // not exist" for a failure), once it has deleted the veth, so a second DEL has nothing to do.
      const undoError = await this.del(list, attachment)
        .catch(() => this.del(list, attachment))
        .then(() => undefined, (e: unknown) => e);
      if (undoError === undefined) throw err;
      throw undoError instanceof CniPluginError ? err.withUndoError(undoError) : undoError;
    }
    return result as CniResult;
  }

  /**
   * DEL: the plugins in reverse order, each given the ADD's result (none after a failed ADD). Run
   * it before the namespace is removed: the bridge plugin finds the masquerading rules to delete
   * through the addresses on the interface inside. Repeating it is no error, nor is a namespace
   * already gone: CNI_NETNS, optional for DEL, is then left empty, since the plugins refuse a path
   * that holds no namespace.
   */
  async del(list: CniNetworkConfigList, attachment: CniAttachment, prevResult?: CniResult): Promise<void> {
    validateAttachment(list, attachment);
    const executables = await this.findAll(list, 'DEL');
    const netns = (await isNetns(attachment.netns)) ? attachment.netns : '';
    for (let i = list.plugins.length - 1; i >= 0; i--) await this.invoke('DEL', executables[i], list, list.plugins[i], attachment, netns, prevResult);
  }

  /** CHECK: the plugins in order, each given the ADD's result; nothing when the list disables it. */
  async check(list: CniNetworkConfigList, attachment: CniAttachment, prevResult: CniResult): Promise<void> {
    validateAttachment(list, attachment);
    if (list.disableCheck === true) return;
    const executables = await this.findAll(list, 'CHECK');
    for (const [i, plugin] of list.plugins.entries()) await this.invoke('CHECK', executables[i], list, plugin, attachment, attachment.netns, prevResult);
  }

  /** Runs one plugin; its stdout, or a CniPluginError. */
  private async invoke(command: CniCommand, executable: string, list: CniNetworkConfigList, plugin: CniPluginConfig, attachment: CniAttachment, netns: string, prevResult: CniResult | undefined): Promise<string> {
    const env = {
      ...process.env,
      CNI_COMMAND: command,
      CNI_CONTAINERID: attachment.containerId,
      CNI_NETNS: netns,
      CNI_IFNAME: attachment.ifName,
      CNI_ARGS: cniArgs(attachment.args),
      CNI_PATH: this.pluginDirs.join(path.delimiter),
    };
    const [file, args] = inNetns(this.hostNetns, executable, []);
    const input = JSON.stringify(executionConfig(list, plugin, prevResult, attachment.capabilityArgs));
    let r;
    try {
      r = await runCommand(file, args, { env, input, timeoutMs: this.timeoutMs, allowExitCodes: ANY_EXIT_STATUS });
    } catch (err) {
      if (err instanceof CommandError) throw pluginRunError(plugin.type, command, err, this.timeoutMs);
      throw err;
    }
    if (r.exitCode !== 0) throw pluginExitError(plugin.type, command, r.exitCode, r.stdout.toString(), r.stderr);
    return r.stdout.toString();
  }

  /** The list's executables, all found before any runs: a missing one (the first, in order) fails the call before it changes anything. */
  private async findAll(list: CniNetworkConfigList, command: CniCommand): Promise<string[]> {
    const found: string[] = [];
    for (const { type } of list.plugins) found.push(await this.find(type, command));
    return found;
  }

  private async find(type: string, command: CniCommand): Promise<string> {
    for (const dir of this.pluginDirs) {
      const candidate = path.join(dir, type);
      if (await stat(candidate).then((s) => s.isFile(), () => false)) return candidate;
    }
    throw pluginNotFound(type, command, this.pluginDirs);
  }
}

function parseResult(plugin: string, stdout: string): CniResult {
  try {
    const result = JSON.parse(stdout) as unknown;
    if (typeof result === 'object' && result !== null && typeof (result as CniResult).cniVersion === 'string') return result as CniResult;
  } catch {
    // said below
  }
  throw new CniPluginError(plugin, 'ADD', { msg: `its result is not a CNI result: ${JSON.stringify(stdout.slice(0, 200))}` });
}
