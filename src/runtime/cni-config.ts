// CNI 1.0.0's data (https://www.cni.dev/docs/spec/): the network configuration list berth gives,
// the result a plugin returns, and what each plugin reads on stdin, derived from its entry in the
// list as the spec's section 3 says. Pure; cni.ts runs the plugins.
import { EngineError } from '../errors.js';

/** One plugin of a list: `type` names its executable; every other key reaches it unchanged. */
export interface CniPluginConfig {
  type: string;
  /** the capability arguments it takes (portMappings, ...): it gets those the caller gives in `runtimeConfig` */
  capabilities?: Record<string, boolean>;
  [key: string]: unknown;
}

export interface CniNetworkConfigList {
  cniVersion: '1.0.0';
  name: string;
  /** CHECK does nothing, for plugins known to fail it spuriously */
  disableCheck?: boolean;
  plugins: CniPluginConfig[];
}

export interface CniInterface {
  name: string;
  mac?: string;
  /** the container's namespace; absent for an interface on the host */
  sandbox?: string;
}

export interface CniIpConfig {
  /** CIDR notation: 10.88.0.2/24 */
  address: string;
  gateway?: string;
  /** index into `interfaces` */
  interface?: number;
}

export interface CniRoute {
  dst: string;
  gw?: string;
}

export interface CniDns {
  nameservers?: string[];
  domain?: string;
  search?: string[];
  options?: string[];
}

/** An ADD's result, kept by the caller for CHECK and DEL. */
export interface CniResult {
  cniVersion: string;
  interfaces?: CniInterface[];
  ips?: CniIpConfig[];
  routes?: CniRoute[];
  dns?: CniDns;
}

/** One container's interface on one network: the spec's attachment parameters. */
export interface CniAttachment {
  containerId: string;
  /** the container's network namespace, a file (netns.ts) */
  netns: string;
  /** the interface inside it: eth0 */
  ifName: string;
  /** CNI_ARGS, given to every plugin */
  args?: Record<string, string>;
  /** capability arguments (portMappings: [{hostPort, containerPort, protocol, hostIP}], ...): each plugin gets those it declares */
  capabilityArgs?: Record<string, unknown>;
}

/** libcni's rule for network names and container IDs */
const CNI_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;
/** IFNAMSIZ less the NUL */
const MAX_IFNAME_LENGTH = 15;

/** Refuses what the spec (and libcni) forbid in a list, a container ID, an interface name or CNI_ARGS. */
export function validateAttachment(list: CniNetworkConfigList, attachment: CniAttachment): void {
  if (!CNI_NAME.test(list.name)) throw invalid(`invalid CNI network name ${JSON.stringify(list.name)}: it must start with a letter or digit, followed by letters, digits, '_', '.' or '-'`);
  if (list.plugins.length === 0) throw invalid(`CNI network ${list.name} has no plugins`);
  for (const { type } of list.plugins) {
    if (type === '' || type.includes('/')) throw invalid(`invalid CNI plugin type ${JSON.stringify(type)}: the name of an executable in the plugin directories`);
  }
  if (!CNI_NAME.test(attachment.containerId)) throw invalid(`invalid container ID for CNI ${JSON.stringify(attachment.containerId)}`);
  const ifName = attachment.ifName;
  if (ifName === '' || ifName.length > MAX_IFNAME_LENGTH || ifName === '.' || ifName === '..' || /[/:\s]/.test(ifName)) {
    throw invalid(`invalid interface name ${JSON.stringify(ifName)}: 1 to ${MAX_IFNAME_LENGTH} characters, no '/', ':' or spaces`);
  }
  for (const [key, value] of Object.entries(attachment.args ?? {})) {
    // plugins split CNI_ARGS at each ';' and each pair at each '=' (cni's types.LoadArgs)
    if (key === '' || /[;=]/.test(key) || /[;=]/.test(value)) throw invalid(`invalid CNI argument ${JSON.stringify(`${key}=${value}`)}: no ';' or '=' in its key or value`);
  }
}

/**
 * What `plugin` reads on stdin: its entry with the list's `name` and `cniVersion`, `runtimeConfig`
 * holding the capability arguments it declares (when any), and `prevResult`; `capabilities` removed.
 */
export function executionConfig(list: CniNetworkConfigList, plugin: CniPluginConfig, prevResult: CniResult | undefined, capabilityArgs: Record<string, unknown> = {}): Record<string, unknown> {
  const { capabilities = {}, ...rest } = plugin;
  const conf: Record<string, unknown> = { ...rest, cniVersion: list.cniVersion, name: list.name };
  const runtimeConfig = Object.fromEntries(
    Object.entries(capabilities)
      .filter(([capability, supported]) => supported && Object.hasOwn(capabilityArgs, capability))
      .map(([capability]) => [capability, capabilityArgs[capability]]),
  );
  if (Object.keys(runtimeConfig).length > 0) conf.runtimeConfig = runtimeConfig;
  if (prevResult !== undefined) conf.prevResult = prevResult;
  return conf;
}

/** CNI_ARGS: `K=V;K2=V2`. */
export function cniArgs(args: Record<string, string> = {}): string {
  return Object.entries(args).map(([key, value]) => `${key}=${value}`).join(';');
}

function invalid(message: string): EngineError {
  return new EngineError('invalidParameter', message);
}
