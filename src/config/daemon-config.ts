// berthd's settings: one catalogue naming each option's flag, its daemon.json key (dockerd's spelling),
// its type, and whether SIGHUP may reload it.
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_DYNAMIC_NODE_PORT_RANGE, DEFAULT_NODE_PORT_RANGE } from '../swarm/node-port-ranges.js';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface DaemonConfig {
  hosts: string[];
  dataRoot: string;
  execRoot: string;
  pidfile: string;
  configFile: string;
  logLevel: LogLevel;
  /** undefined: JSON, or text when stderr is a terminal */
  logFormat: LogFormat | undefined;
  debug: boolean;
  group: string;
  labels: string[];
  /** undefined: not said either way (TLS is on when tlsverify is). */
  tls: boolean | undefined;
  tlsVerify: boolean;
  tlsCaCert: string;
  tlsCert: string;
  tlsKey: string;
  /** Where a swarm service's published ports may lie (START-END). */
  nodePortRange: string;
  /** Where published port 0 is allocated from, inside nodePortRange. */
  dynamicNodePortRange: string;
  /** false: berth makes no iptables rule (dockerd's --iptables=false). */
  iptables: boolean;
  /** The default bridge's address and prefix (172.17.0.1/16 when empty). */
  bip: string;
  /** The default bridge's Linux bridge (berth0 when empty). */
  bridge: string;
  /** DNS servers for containers: what the embedded DNS server forwards to, and the default bridge's resolv.conf (the host's when none). */
  dns: string[];
  /** Where legacy plugins (volume drivers) are looked for, sockets and specs alike; Docker's directories when empty. */
  pluginsDir: string;
  /** Registries reached without TLS verification, and over plain HTTP (host:port or CIDR); 127.0.0.0/8 always is. */
  insecureRegistries: string[];
  /** Mirrors tried before Docker Hub for its images. */
  registryMirrors: string[];
  /** The certs.d folder: each registry's CAs and client certificate, in <dir>/<host:port>/. */
  certsDir: string;
  /** How many layers a pull downloads at once. */
  maxConcurrentDownloads: number;
  /** How many layers a push uploads at once. */
  maxConcurrentUploads: number;
  /** Where GET /metrics is served (host:port); nowhere when empty. */
  metricsAddr: string;
  /** the log driver and options of containers that name none (log-driver, log-opts) */
  logDriver: string;
  logOpts: Record<string, string>;
  /** the parent cgroup of containers that name none (dockerd's cgroup-parent); /berth when empty */
  cgroupParent: string;
  /** a swarm manager's etcd member: its client port (on 127.0.0.1) and its peer port (on the advertise address) */
  swarmEtcdClientPort: number;
  swarmEtcdPeerPort: number;
  /** an etcd of the operator's that swarm managers keep the swarm in, instead of members of their own: its client URLs, TLS files and key prefix */
  swarmEtcdEndpoints: string[];
  swarmEtcdCaCert: string;
  swarmEtcdCert: string;
  swarmEtcdKey: string;
  swarmEtcdPrefix: string;
}

export type ConfigField = keyof DaemonConfig;

export interface OptionSpec {
  field: ConfigField;
  /** The daemon.json key; undefined for flag-only options. */
  fileKey?: string;
  type: 'string' | 'boolean' | 'string[]' | 'number' | 'record';
  reloadable: boolean;
}

export const OPTIONS: readonly OptionSpec[] = [
  { field: 'hosts', fileKey: 'hosts', type: 'string[]', reloadable: false },
  { field: 'dataRoot', fileKey: 'data-root', type: 'string', reloadable: false },
  { field: 'execRoot', fileKey: 'exec-root', type: 'string', reloadable: false },
  { field: 'pidfile', fileKey: 'pidfile', type: 'string', reloadable: false },
  { field: 'configFile', type: 'string', reloadable: false },
  { field: 'logLevel', fileKey: 'log-level', type: 'string', reloadable: false },
  { field: 'logFormat', fileKey: 'log-format', type: 'string', reloadable: false },
  { field: 'debug', fileKey: 'debug', type: 'boolean', reloadable: true },
  { field: 'group', fileKey: 'group', type: 'string', reloadable: false },
  { field: 'labels', fileKey: 'labels', type: 'string[]', reloadable: true },
  { field: 'tls', fileKey: 'tls', type: 'boolean', reloadable: false },
  { field: 'tlsVerify', fileKey: 'tlsverify', type: 'boolean', reloadable: false },
  { field: 'tlsCaCert', fileKey: 'tlscacert', type: 'string', reloadable: false },
  { field: 'tlsCert', fileKey: 'tlscert', type: 'string', reloadable: false },
  { field: 'tlsKey', fileKey: 'tlskey', type: 'string', reloadable: false },
  { field: 'nodePortRange', fileKey: 'node-port-range', type: 'string', reloadable: false },
  { field: 'dynamicNodePortRange', fileKey: 'dynamic-node-port-range', type: 'string', reloadable: false },
  { field: 'iptables', fileKey: 'iptables', type: 'boolean', reloadable: false },
  { field: 'bip', fileKey: 'bip', type: 'string', reloadable: false },
  { field: 'bridge', fileKey: 'bridge', type: 'string', reloadable: false },
  { field: 'dns', fileKey: 'dns', type: 'string[]', reloadable: false },
  { field: 'pluginsDir', fileKey: 'plugins-dir', type: 'string', reloadable: false },
  { field: 'insecureRegistries', fileKey: 'insecure-registries', type: 'string[]', reloadable: false },
  { field: 'registryMirrors', fileKey: 'registry-mirrors', type: 'string[]', reloadable: false },
  { field: 'certsDir', fileKey: 'certs-dir', type: 'string', reloadable: false },
  { field: 'maxConcurrentDownloads', fileKey: 'max-concurrent-downloads', type: 'number', reloadable: false },
  { field: 'maxConcurrentUploads', fileKey: 'max-concurrent-uploads', type: 'number', reloadable: false },
  { field: 'metricsAddr', fileKey: 'metrics-addr', type: 'string', reloadable: false },
  { field: 'logDriver', fileKey: 'log-driver', type: 'string', reloadable: false },
  { field: 'logOpts', fileKey: 'log-opts', type: 'record', reloadable: false },
  { field: 'cgroupParent', fileKey: 'cgroup-parent', type: 'string', reloadable: false },
  { field: 'swarmEtcdClientPort', fileKey: 'swarm-etcd-client-port', type: 'number', reloadable: false },
  { field: 'swarmEtcdPeerPort', fileKey: 'swarm-etcd-peer-port', type: 'number', reloadable: false },
  { field: 'swarmEtcdEndpoints', fileKey: 'swarm-etcd-endpoints', type: 'string[]', reloadable: false },
  { field: 'swarmEtcdCaCert', fileKey: 'swarm-etcd-cacert', type: 'string', reloadable: false },
  { field: 'swarmEtcdCert', fileKey: 'swarm-etcd-cert', type: 'string', reloadable: false },
  { field: 'swarmEtcdKey', fileKey: 'swarm-etcd-key', type: 'string', reloadable: false },
  { field: 'swarmEtcdPrefix', fileKey: 'swarm-etcd-prefix', type: 'string', reloadable: false },
];

export const DEFAULT_SOCKET = '/run/berth/berth.sock';

export function defaultConfig(env: NodeJS.ProcessEnv = process.env): DaemonConfig {
  const certPath = env.DOCKER_CERT_PATH || path.join(os.homedir(), '.docker');
  return {
    hosts: [],
    dataRoot: '/var/lib/berth',
    execRoot: '/run/berth',
    pidfile: '/run/berth/berthd.pid',
    configFile: '/etc/berth/daemon.json',
    logLevel: 'info',
    logFormat: undefined,
    debug: false,
    group: 'docker',
    labels: [],
    tls: undefined,
    tlsVerify: Boolean(env.DOCKER_TLS_VERIFY),
    tlsCaCert: path.join(certPath, 'ca.pem'),
    tlsCert: path.join(certPath, 'cert.pem'),
    tlsKey: path.join(certPath, 'key.pem'),
    nodePortRange: DEFAULT_NODE_PORT_RANGE,
    dynamicNodePortRange: DEFAULT_DYNAMIC_NODE_PORT_RANGE,
    iptables: true,
    bip: '',
    bridge: '',
    dns: [],
    pluginsDir: '',
    insecureRegistries: [],
    registryMirrors: [],
    certsDir: '/etc/docker/certs.d',
    maxConcurrentDownloads: 3,
    maxConcurrentUploads: 5,
    metricsAddr: '',
    logDriver: 'json-file',
    logOpts: {},
    cgroupParent: '',
    swarmEtcdClientPort: 2379,
    swarmEtcdPeerPort: 2380,
    swarmEtcdEndpoints: [],
    swarmEtcdCaCert: '',
    swarmEtcdCert: '',
    swarmEtcdKey: '',
    swarmEtcdPrefix: '/berth/v1',
  };
}

/** The addresses berthd listens on: the -H values, or the default socket. */
export function listenAddresses(config: DaemonConfig): string[] {
  return config.hosts.length > 0 ? config.hosts : [`unix://${DEFAULT_SOCKET}`];
}

/** The effective log level: --debug wins over --log-level, as in dockerd. */
export function effectiveLogLevel(config: DaemonConfig): LogLevel {
  return config.debug ? 'debug' : config.logLevel;
}
