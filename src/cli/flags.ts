// berthd's command line, in dockerd's spelling. Returns the settings and which of them the
// command line gave, so daemon.json can be checked against them.
import { Command, InvalidArgumentError, Option } from 'commander';
import { BERTH_VERSION } from '../version.js';
import { defaultConfig, LOG_FORMATS, LOG_LEVELS, type DaemonConfig } from '../config/daemon-config.js';

export interface ParsedFlags {
  config: DaemonConfig;
  fromFlags: Partial<DaemonConfig>;
  /** --validate: check the settings and daemon.json, then exit */
  validate: boolean;
}

const FLAG_FIELDS: Record<string, keyof DaemonConfig> = {
  host: 'hosts',
  dataRoot: 'dataRoot',
  execRoot: 'execRoot',
  pidfile: 'pidfile',
  configFile: 'configFile',
  logLevel: 'logLevel',
  logFormat: 'logFormat',
  debug: 'debug',
  group: 'group',
  label: 'labels',
  tls: 'tls',
  tlsverify: 'tlsVerify',
  tlscacert: 'tlsCaCert',
  tlscert: 'tlsCert',
  tlskey: 'tlsKey',
  nodePortRange: 'nodePortRange',
  dynamicNodePortRange: 'dynamicNodePortRange',
  iptables: 'iptables',
  bip: 'bip',
  bridge: 'bridge',
  dns: 'dns',
  pluginsDir: 'pluginsDir',
  insecureRegistry: 'insecureRegistries',
  registryMirror: 'registryMirrors',
  certsDir: 'certsDir',
  maxConcurrentDownloads: 'maxConcurrentDownloads',
  maxConcurrentUploads: 'maxConcurrentUploads',
  metricsAddr: 'metricsAddr',
  logDriver: 'logDriver',
  logOpt: 'logOpts',
  cgroupParent: 'cgroupParent',
  swarmEtcdClientPort: 'swarmEtcdClientPort',
  swarmEtcdPeerPort: 'swarmEtcdPeerPort',
  swarmEtcdEndpoint: 'swarmEtcdEndpoints',
  swarmEtcdCacert: 'swarmEtcdCaCert',
  swarmEtcdCert: 'swarmEtcdCert',
  swarmEtcdKey: 'swarmEtcdKey',
  swarmEtcdPrefix: 'swarmEtcdPrefix',
};

export function parseFlags(argv: string[], env: NodeJS.ProcessEnv = process.env): ParsedFlags {
  const defaults = defaultConfig(env);
  const program = new Command('berthd')
    .description('A container engine that serves the Docker Engine API')
    .version(`berth version ${BERTH_VERSION}`, '-v, --version', 'Print version information and quit')
    .helpOption('-h, --help', 'Print usage')
    .allowExcessArguments(false)
    .option('-H, --host <address>', 'Daemon socket(s) to connect to: unix:///path or tcp://host:port (repeatable)', repeat, [])
    .option('--data-root <dir>', 'Root directory of persistent berth state', defaults.dataRoot)
    .option('--exec-root <dir>', 'Root directory for execution state files', defaults.execRoot)
    .option('-p, --pidfile <file>', 'Path to use for daemon PID file', defaults.pidfile)
    .option('--config-file <file>', 'Daemon configuration file', defaults.configFile)
    .addOption(new Option('-l, --log-level <level>', 'Set the logging level').choices(LOG_LEVELS).default(defaults.logLevel))
    .addOption(new Option('--log-format <format>', 'Set the logging format (json by default, text on a terminal)').choices(LOG_FORMATS))
    .option('-D, --debug [bool]', 'Enable debug mode', parseBool, false)
    .option('-G, --group <group>', 'Group for the unix socket', defaults.group)
    .option('--label <key=value>', 'Set key=value labels to the daemon (repeatable)', repeatLabel, [])
    .option('--tls [bool]', 'Use TLS; implied by --tlsverify', parseBool)
    .option('--tlsverify [bool]', 'Use TLS and verify the remote', parseBool, defaults.tlsVerify)
    .option('--tlscacert <file>', 'Trust certs signed only by this CA', defaults.tlsCaCert)
    .option('--tlscert <file>', 'Path to TLS certificate file', defaults.tlsCert)
    .option('--tlskey <file>', 'Path to TLS key file', defaults.tlsKey)
    .option('--node-port-range <range>', 'Ports a swarm service may publish', defaults.nodePortRange)
    .option('--dynamic-node-port-range <range>', 'Ports given to a swarm service that publishes port 0', defaults.dynamicNodePortRange)
    .option('--iptables [bool]', 'Enable addition of iptables rules', parseBool, defaults.iptables)
    .option('--bip <cidr>', 'Specify network bridge IP', defaults.bip)
    .option('-b, --bridge <name>', 'Attach containers to a network bridge', defaults.bridge)
    .option('--dns <address>', 'DNS server to use (repeatable)', repeat, [])
    .option('--plugins-dir <dir>', "Where legacy plugins' sockets and specs are looked for (Docker's directories by default)", defaults.pluginsDir)
    .option('--insecure-registry <registry>', 'Registry reached without TLS verification, or over plain HTTP (host:port or CIDR; repeatable)', repeat, [])
    .option('--registry-mirror <url>', 'Preferred Docker registry mirror (repeatable)', repeat, [])
    .option('--certs-dir <dir>', "Registries' CAs and client certificates, in <dir>/<host:port>/", defaults.certsDir)
    .option('--max-concurrent-downloads <n>', 'Set the max concurrent downloads for each pull', positiveInt, defaults.maxConcurrentDownloads)
    .option('--max-concurrent-uploads <n>', 'Set the max concurrent uploads for each push', positiveInt, defaults.maxConcurrentUploads)
    .option('--metrics-addr <host:port>', 'Set default address and port to serve the metrics api on', defaults.metricsAddr)
    .option('--log-driver <driver>', 'Default driver for container logs', defaults.logDriver)
    .option('--log-opt <key=value>', 'Default log driver options for containers (repeatable)', repeatKeyValue, {})
    .option('--cgroup-parent <cgroup>', 'Set parent cgroup for all containers', defaults.cgroupParent)
    .option('--swarm-etcd-client-port <port>', "A swarm manager's etcd member's client port, on 127.0.0.1", positiveInt, defaults.swarmEtcdClientPort)
    .option('--swarm-etcd-peer-port <port>', "A swarm manager's etcd member's peer port, on its advertise address", positiveInt, defaults.swarmEtcdPeerPort)
    .option('--swarm-etcd-endpoint <url>', "An etcd of the operator's to keep the swarm in, instead of the managers' own members (repeatable)", repeat, [])
    .option('--swarm-etcd-cacert <file>', 'The CA of --swarm-etcd-endpoint', defaults.swarmEtcdCaCert)
    .option('--swarm-etcd-cert <file>', "berth's client certificate for --swarm-etcd-endpoint", defaults.swarmEtcdCert)
    .option('--swarm-etcd-key <file>', "berth's client key for --swarm-etcd-endpoint", defaults.swarmEtcdKey)
    .option('--swarm-etcd-prefix <prefix>', 'Where the swarm lives in --swarm-etcd-endpoint', defaults.swarmEtcdPrefix)
    .option('--validate', 'Validate daemon configuration and exit', false);
  program.parse(argv, { from: 'user' });

  const opts = program.opts();
  const config = { ...defaults };
  const fromFlags: Partial<DaemonConfig> = {};
  for (const [name, field] of Object.entries(FLAG_FIELDS)) {
    const value = opts[name];
    if (value === undefined) continue;
    (config as Record<string, unknown>)[field] = value;
    if (program.getOptionValueSource(name) === 'cli') (fromFlags as Record<string, unknown>)[field] = value;
  }
  return { config, fromFlags, validate: opts.validate === true };
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`invalid number "${value}": expected a whole number of 1 or more`);
  return n;
}

function repeat(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function repeatLabel(value: string, previous: string[]): string[] {
  if (!value.includes('=')) throw new InvalidArgumentError(`bad attribute format: ${value}`);
  return [...previous, value];
}

/** --log-opt k=v, repeated, into one object (dockerd's NamedMapOpts). */
function repeatKeyValue(value: string, previous: Record<string, string>): Record<string, string> {
  const at = value.indexOf('=');
  if (at < 0) throw new InvalidArgumentError(`invalid key value pair format in log-opt: ${value}`);
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
}

/** pflag's booleans: `--debug`, `--debug=true`, `--debug=false`. */
function parseBool(value: string | undefined): boolean {
  if (value === undefined) return true;
  const v = value.toLowerCase();
  if (['1', 't', 'true'].includes(v)) return true;
  if (['0', 'f', 'false'].includes(v)) return false;
  throw new InvalidArgumentError(`invalid boolean value "${value}"`);
}
