// Swarm managers' etcd members for tests (src/runtime/etcd-member.ts): manager n on its own
// loopback address, 127.0.0.n, with free ports and a certificate like the swarm CA's for it
// (tls.ts), the data of all in one temporary folder. close() stops every member and removes the
// folder; a member left by a failed test dies with the test's process (its parent-death signal).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { EtcdMember, type EtcdMemberOptions } from '../../src/runtime/etcd-member.js';
import { freePort } from './ports.js';
import { makeNodeCert, makeTlsFixtures, type TlsFixtures } from './tls.js';

export const ALLOWED_HOSTNAME = 'swarm-manager';

export interface TestManager {
  /** m<n> */
  name: string;
  clientUrl: string;
  peerUrl: string;
  /** its certificate's files (PEM) */
  certFile: string;
  keyFile: string;
  /** the CA and its certificate and key, as an EtcdStore or EtcdMembership takes them */
  clientTls: { ca: Buffer; cert: Buffer; key: Buffer };
}

export class TestManagers {
  readonly dir = mkdtempSync(path.join(os.tmpdir(), 'berth-etcd-members-'));
  readonly fixtures: TlsFixtures = makeTlsFixtures(this.dir);
  private readonly members = new Set<EtcdMember>();

  /** Manager n's address, ports and certificate. */
  async manager(n: number): Promise<TestManager> {
    const ip = `127.0.0.${n}`;
    const name = `m${n}`;
    const { cert, key } = makeNodeCert(this.fixtures, name, 'manager', ip);
    return {
      name,
      clientUrl: `https://${ip}:${await freePort(ip)}`,
      peerUrl: `https://${ip}:${await freePort(ip)}`,
      certFile: cert,
      keyFile: key,
      clientTls: { ca: readFileSync(this.fixtures.ca), cert: readFileSync(cert), key: readFileSync(key) },
    };
  }

  /** A member for `m`, to be started by the test; stopped by close(). */
  member(m: TestManager, initialCluster: string, initialClusterState: 'new' | 'existing', more: Partial<EtcdMemberOptions> = {}): EtcdMember {
    const member = new EtcdMember({
      name: m.name,
      dataDir: path.join(this.dir, m.name),
      clientUrl: m.clientUrl,
      peerUrl: m.peerUrl,
      tls: { ca: this.fixtures.ca, cert: m.certFile, key: m.keyFile, allowedHostname: ALLOWED_HOSTNAME },
      initialCluster,
      initialClusterState,
      log: pino({ level: 'silent' }),
      ...more,
    });
    this.members.add(member);
    return member;
  }

  async close(): Promise<void> {
    await Promise.all([...this.members].map((m) => m.stop()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Whether process `pid` is alive (a zombie waiting to be reaped is not). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.charAt(stat.lastIndexOf(')') + 2) !== 'Z';
  } catch {
    return false;
  }
}
