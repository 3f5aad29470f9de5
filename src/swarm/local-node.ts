// What this node keeps of its swarm membership under <dataRoot>/swarm, so that a restarted berthd
// is in the swarm it was in: state.json (its ID, role, addresses and the managers it knows) and
// its certificates, as dockerd names them (certificates/swarm-root-ca.crt, swarm-node.crt,
// swarm-node.key, the key readable by root only). Each file is written atomically; state.json
// last, so that a state on disk always has its certificates.
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../store/atomic-file.js';
import type { NodeRole } from './ca/swarm-ca.js';

export interface ManagerAddress {
  nodeId: string;
  /** host:port of its cluster API */
  addr: string;
}

export interface LocalNodeState {
  nodeId: string;
  clusterId: string;
  role: NodeRole;
  /** where its cluster API listens (managers), host:port */
  listenAddr: string;
  /** the address other nodes reach it at, host:port */
  advertiseAddr: string;
  dataPathAddr: string;
  managers: ManagerAddress[];
  /** a manager's own etcd member, once the swarm has had a second manager; its LocalStore before */
  etcd?: EtcdSettings;
  /** a manager of a swarm kept in an etcd of the operator's (--swarm-etcd-endpoint) */
  externalStore?: true;
}

export interface EtcdSettings {
  /** https://127.0.0.1:PORT: only berthd on this node talks to its member */
  clientUrl: string;
  /** https://IP:PORT on the advertise address, for the other members */
  peerUrl: string;
  /** how the member first started (etcd ignores both once its data holds a member) */
  initialCluster: string;
  initialClusterState: 'new' | 'existing';
  /** what the store's revisions read with (store-migration.ts) */
  revisionOffset: number;
}

export interface NodeCertificates {
  rootCaPem: string;
  certPem: string;
  keyPem: string;
}

/** What a node keeps on disk: under autolock a manager's key and data key are sealed (ca/sealing.ts). */
export interface StoredNode {
  state: LocalNodeState;
  /** keyPem as on disk: a PEM, or a sealed block */
  certs: NodeCertificates;
  /** a manager's data key as on disk: base64, or a sealed block */
  dataKey?: string;
}

export class LocalNode {
  readonly dir: string;
  private readonly certDir: string;
  private readonly runDir: string;

  constructor(dataRoot: string, execRoot: string) {
    this.dir = path.join(dataRoot, 'swarm');
    this.certDir = path.join(this.dir, 'certificates');
    this.runDir = path.join(execRoot, 'swarm');
  }

  /**
   * The certificate files as a manager's etcd member reads them: its key from a copy under the
   * exec root (a tmpfs, /run), written while the manager runs, since the one in the data root
   * may be sealed.
   */
  get certificateFiles(): { ca: string; cert: string; key: string } {
    return { ca: path.join(this.certDir, 'swarm-root-ca.crt'), cert: path.join(this.certDir, 'swarm-node.crt'), key: path.join(this.runDir, 'swarm-node.key') };
  }

  /** Gone while the manager does not run: under autolock the key is then only sealed. */
  async removeRuntimeKey(): Promise<void> {
    await rm(path.join(this.runDir, 'swarm-node.key'), { force: true });
  }

  async writeRuntimeKey(keyPem: string): Promise<void> {
    await mkdir(this.runDir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(path.join(this.runDir, 'swarm-node.key'), keyPem, 0o600);
  }

  /** A manager's etcd member's data. */
  get etcdDir(): string {
    return path.join(this.dir, 'etcd');
  }

  /** A single manager's LocalStore. */
  get storeDir(): string {
    return path.join(this.dir, 'store');
  }

  /** A private folder for files that pass through (keys openssl reads). */
  get workDir(): string {
    return path.join(this.dir, 'work');
  }

  async load(): Promise<StoredNode | undefined> {
    const stateFile = path.join(this.dir, 'state.json');
    if (!existsSync(stateFile)) return undefined;
    const state = JSON.parse(await readFile(stateFile, 'utf8')) as LocalNodeState;
    const [rootCaPem, certPem, keyPem] = await Promise.all(['swarm-root-ca.crt', 'swarm-node.crt', 'swarm-node.key'].map((f) => readFile(path.join(this.certDir, f), 'utf8')));
    const dataKeyFile = path.join(this.certDir, 'swarm-data.key');
    const dataKey = existsSync(dataKeyFile) ? await readFile(dataKeyFile, 'utf8') : undefined;
    return { state, certs: { rootCaPem: rootCaPem!, certPem: certPem!, keyPem: keyPem! }, ...(dataKey !== undefined ? { dataKey } : {}) };
  }

  /** `keyPem` as given: the caller seals it first under autolock. */
  async saveCertificates(certs: NodeCertificates): Promise<void> {
    await mkdir(this.certDir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(path.join(this.certDir, 'swarm-root-ca.crt'), certs.rootCaPem, 0o644);
    await writeFileAtomic(path.join(this.certDir, 'swarm-node.crt'), certs.certPem, 0o644);
    await writeFileAtomic(path.join(this.certDir, 'swarm-node.key'), certs.keyPem, 0o600);
  }

  /** A manager's data key as given (base64, or sealed); none: a worker's, removed. */
  async saveDataKey(text: string | undefined): Promise<void> {
    const file = path.join(this.certDir, 'swarm-data.key');
    if (text === undefined) return void (await rm(file, { force: true }));
    await mkdir(this.certDir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(file, text, 0o600);
  }

  async saveState(state: LocalNodeState): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(path.join(this.dir, 'state.json'), JSON.stringify(state), 0o600);
  }

  async ensureWorkDir(): Promise<string> {
    await mkdir(this.workDir, { recursive: true, mode: 0o700 });
    return this.workDir;
  }

  /** Forgets the swarm: the state first, so that a crash halfway leaves a node outside any swarm. */
  async clear(): Promise<void> {
    await rm(path.join(this.dir, 'state.json'), { force: true });
    await rm(this.dir, { recursive: true, force: true });
    await rm(this.runDir, { recursive: true, force: true });
  }
}
