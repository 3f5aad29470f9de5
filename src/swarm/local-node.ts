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

export class LocalNode {
  readonly dir: string;
  private readonly certDir: string;

  constructor(dataRoot: string) {
    this.dir = path.join(dataRoot, 'swarm');
    this.certDir = path.join(this.dir, 'certificates');
  }

  /** The certificate files, as etcd reads them. */
  get certificateFiles(): { ca: string; cert: string; key: string } {
    return { ca: path.join(this.certDir, 'swarm-root-ca.crt'), cert: path.join(this.certDir, 'swarm-node.crt'), key: path.join(this.certDir, 'swarm-node.key') };
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

  async load(): Promise<{ state: LocalNodeState; certs: NodeCertificates } | undefined> {
    const stateFile = path.join(this.dir, 'state.json');
    if (!existsSync(stateFile)) return undefined;
    const state = JSON.parse(await readFile(stateFile, 'utf8')) as LocalNodeState;
    const [rootCaPem, certPem, keyPem] = await Promise.all(['swarm-root-ca.crt', 'swarm-node.crt', 'swarm-node.key'].map((f) => readFile(path.join(this.certDir, f), 'utf8')));
    return { state, certs: { rootCaPem: rootCaPem!, certPem: certPem!, keyPem: keyPem! } };
  }

  async saveCertificates(certs: NodeCertificates): Promise<void> {
    await mkdir(this.certDir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(path.join(this.certDir, 'swarm-root-ca.crt'), certs.rootCaPem, 0o644);
    await writeFileAtomic(path.join(this.certDir, 'swarm-node.crt'), certs.certPem, 0o644);
    await writeFileAtomic(path.join(this.certDir, 'swarm-node.key'), certs.keyPem, 0o600);
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
  }
}
