// The swarm's certificate authority, as swarmkit's: a root CA made at init (EC P-256, CN swarm-ca,
// 20 years), which managers hold with its key and use to issue node certificates with the node's
// ID as CN, its role as OU (swarm-manager or swarm-worker) and the cluster's ID as O, valid for the
// spec's NodeCertExpiry. Managers' certificates name `swarm-manager` as a DNS name, so that a node
// reaching any manager checks it against that name (swarmkit's ServerName), whatever its address.
import { X509Certificate, generateKeyPair, randomBytes } from 'node:crypto';
import type { PeerCertificate } from 'node:tls';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { certificateRequest, selfSignedCaCertificate, signCertificateRequest } from '../../runtime/openssl.js';

export type NodeRole = 'manager' | 'worker';

/** The name every manager's certificate carries, and what nodes check when they connect to one. */
export const MANAGER_NAME = 'swarm-manager';
const WORKER_NAME = 'swarm-worker';
const ROOT_CA_NAME = 'swarm-ca';
const ROOT_CA_DAYS = 20 * 365;
const DAY_MS = 24 * 3600 * 1000;

const generateKeyPairAsync = promisify(generateKeyPair);

/** A new EC P-256 private key (PEM), as swarmkit's keys. */
export async function newPrivateKey(): Promise<string> {
  const { privateKey } = await generateKeyPairAsync('ec', { namedCurve: 'prime256v1', privateKeyEncoding: { type: 'sec1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  return privateKey;
}

export interface RootCa {
  certPem: string;
  keyPem: string;
}

export interface NodeIdentity {
  nodeId: string;
  role: NodeRole;
  clusterId: string;
}

/** Makes a root CA in `workDir` (a private folder), whose key file it leaves there. */
export async function createRootCa(workDir: string): Promise<RootCa> {
  const keyPem = await newPrivateKey();
  const keyFile = path.join(workDir, 'swarm-root-ca.key');
  await writeFile(keyFile, keyPem, { mode: 0o600 });
  return { certPem: await selfSignedCaCertificate(keyFile, ROOT_CA_NAME, ROOT_CA_DAYS), keyPem };
}

/** A key and a request for a node's certificate: what a joining node sends, keeping the key. */
export async function newCertificateRequest(workDir: string): Promise<{ keyPem: string; csrPem: string }> {
  const keyPem = await newPrivateKey();
  // a name of its own: requests made in the same millisecond must not share (and remove) one file
  const keyFile = path.join(workDir, `request-${randomBytes(8).toString('hex')}.key`);
  await writeFile(keyFile, keyPem, { mode: 0o600 });
  try {
    return { keyPem, csrPem: await certificateRequest(keyFile) };
  } finally {
    await rm(keyFile, { force: true });
  }
}

/** Issues node certificates with a root CA's key, kept in files of a private folder while it does. */
export class CertificateIssuer {
  private files: Promise<{ cert: string; key: string }> | undefined;

  constructor(
    private readonly ca: RootCa,
    private readonly workDir: string,
  ) {}

  /**
   * A manager's certificate names the addresses it serves its etcd member on (`managerIps`, with
   * 127.0.0.1): etcd's peers and clients check the certificate against the address they dial.
   */
  async issue(csrPem: string, identity: NodeIdentity, expiryMs: number, managerIps: readonly string[] = []): Promise<string> {
    const files = await (this.files ??= this.writeFiles());
    const names = identity.role === 'manager' ? [MANAGER_NAME, identity.nodeId, ROOT_CA_NAME].map((n) => `DNS:${n}`).concat([...new Set(['127.0.0.1', ...managerIps])].map((ip) => `IP:${ip}`)) : [WORKER_NAME, identity.nodeId].map((n) => `DNS:${n}`);
    return signCertificateRequest({
      csrPem,
      caCertFile: files.cert,
      caKeyFile: files.key,
      subject: `/O=${identity.clusterId}/OU=${roleName(identity.role)}/CN=${identity.nodeId}`,
      extensions: ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature,keyEncipherment', 'extendedKeyUsage=serverAuth,clientAuth', `subjectAltName=${names.join(',')}`],
      // openssl counts whole days; the renewal reads the certificate's own end
      days: Math.max(1, Math.ceil(expiryMs / DAY_MS)),
      workDir: this.workDir,
    });
  }

  private async writeFiles(): Promise<{ cert: string; key: string }> {
    await mkdir(this.workDir, { recursive: true, mode: 0o700 });
    const cert = path.join(this.workDir, 'issuer-ca.crt');
    const key = path.join(this.workDir, 'issuer-ca.key');
    await writeFile(cert, this.ca.certPem, { mode: 0o644 });
    await writeFile(key, this.ca.keyPem, { mode: 0o600 });
    return { cert, key };
  }
}

function roleName(role: NodeRole): string {
  return role === 'manager' ? MANAGER_NAME : WORKER_NAME;
}

/** Who a certificate of the swarm says its holder is; undefined when it names no node. */
export function certificateIdentity(cert: Pick<PeerCertificate, 'subject'>): NodeIdentity | undefined {
  const { CN, OU, O } = cert.subject as unknown as Record<string, string | undefined>;
  if (CN === undefined || O === undefined) return undefined;
  if (OU === MANAGER_NAME) return { nodeId: CN, role: 'manager', clusterId: O };
  if (OU === WORKER_NAME) return { nodeId: CN, role: 'worker', clusterId: O };
  return undefined;
}

export interface TlsInfoView {
  trustRoot: string;
  /** DER, base64 */
  issuerSubject: string;
  /** DER of its SubjectPublicKeyInfo, base64 */
  issuerPublicKey: string;
}

/** The TLSInfo the API shows of a root CA: its PEM, its subject and its public key. */
export function tlsInfoOf(rootCaPem: string): TlsInfoView {
  const cert = new X509Certificate(rootCaPem);
  return {
    trustRoot: rootCaPem,
    issuerSubject: rawSubject(cert.raw).toString('base64'),
    issuerPublicKey: cert.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
  };
}

/** The subject of a certificate (DER) as it is encoded there (Go's RawSubject). */
function rawSubject(der: Buffer): Buffer {
  const certificate = readTlv(der, 0);
  const tbs = readTlv(der, certificate.contentStart);
  let at = tbs.contentStart;
  // version ([0], optional), serialNumber, signature, issuer, validity, subject
  if (der[at] === 0xa0) at = readTlv(der, at).end;
  for (let i = 0; i < 4; i++) at = readTlv(der, at).end;
  const subject = readTlv(der, at);
  return der.subarray(at, subject.end);
}

function readTlv(der: Buffer, at: number): { contentStart: number; end: number } {
  let length = der[at + 1]!;
  let contentStart = at + 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + der[at + 2 + i]!;
    contentStart += bytes;
  }
  return { contentStart, end: contentStart + length };
}
