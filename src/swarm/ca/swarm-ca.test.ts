// The swarm's CA with real certificates: TLSInfo of a real swarmkit root CA (dockerd 20.10), of
// certificates openssl made with subjects long enough for multi-byte DER lengths, and node
// certificates issued by createRootCa's CA, checked with node:crypto and in TLS handshakes on
// loopback as swarmkit's nodes make them (the CA pinned, `swarm-manager` as the server name).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import tls from 'node:tls';
import { CERT_ISSUER_PUBLIC_KEY, CERT_ISSUER_SUBJECT, TRUST_ROOT } from './dockerd-swarm.fixture.js';
import { certificateIdentity, CertificateIssuer, createRootCa, MANAGER_NAME, newCertificateRequest, tlsInfoOf, type NodeIdentity, type RootCa } from './swarm-ca.js';

const DAY_MS = 24 * 3600 * 1000;
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'berth-swarm-ca-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

function openssl(args: string[], input?: string): string {
  return execFileSync('openssl', args, { cwd: scratch, input, stdio: ['pipe', 'pipe', 'pipe'] }).toString('utf8');
}

/** A DER TLV, its length in the short or long form. */
function der(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return Buffer.concat([Buffer.from([tag, ...length]), content]);
}

const ATTRIBUTE_OIDS = { CN: [0x55, 4, 3], L: [0x55, 4, 7], O: [0x55, 4, 10], OU: [0x55, 4, 11] };

/** A Name as openssl writes `-subj /K=v/...`: one RDN per attribute, each value a UTF8String. */
function nameDer(attributes: Array<[keyof typeof ATTRIBUTE_OIDS, string]>): Buffer {
  const rdns = attributes.map(([k, v]) => der(0x31, der(0x30, Buffer.concat([der(0x06, Buffer.from(ATTRIBUTE_OIDS[k])), der(0x0c, Buffer.from(v))]))));
  return der(0x30, Buffer.concat(rdns));
}

function spkiBase64(keyPem: string): string {
  return createPublicKey(createPrivateKey(keyPem)).export({ type: 'spki', format: 'der' }).toString('base64');
}

function lifetimeMs(certPem: string): number {
  const cert = new X509Certificate(certPem);
  return Date.parse(cert.validTo) - Date.parse(cert.validFrom);
}

/** The certificate's subject as node:tls shows a peer's (what certificateIdentity reads). */
function peerView(certPem: string) {
  return new X509Certificate(certPem).toLegacyObject();
}

describe('tlsInfoOf', () => {
  it("gives a real swarmkit root CA's CertIssuerSubject and CertIssuerPublicKey, as dockerd 20.10 showed them", () => {
    assert.deepEqual(tlsInfoOf(TRUST_ROOT), { trustRoot: TRUST_ROOT, issuerSubject: CERT_ISSUER_SUBJECT, issuerPublicKey: CERT_ISSUER_PUBLIC_KEY });
  });

  it('reads subjects and issuers whose DER lengths take one or two bytes, in a certificate without a version field', () => {
    // openssl caps a CN at 64 characters (X.520's ub-common-name): several long attributes make a long subject
    const long = 'a'.repeat(64);
    const caName: Array<[keyof typeof ATTRIBUTE_OIDS, string]> = [['CN', long], ['O', long], ['OU', long], ['L', long]];
    const leafName: Array<[keyof typeof ATTRIBUTE_OIDS, string]> = [['CN', 'leaf'], ['O', long], ['OU', long]];
    const subj = (attributes: typeof caName) => attributes.map(([k, v]) => `/${k}=${v}`).join('');
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    openssl(['req', '-x509', ...ec, '-keyout', 'long-ca.key', '-out', 'long-ca.pem', '-subj', subj(caName), '-days', '2']);
    openssl(['req', '-new', ...ec, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', subj(leafName)]);
    // no extensions: a version 1 certificate, whose TBSCertificate starts with the serial number
    openssl(['x509', '-req', '-in', 'leaf.csr', '-CA', 'long-ca.pem', '-CAkey', 'long-ca.key', '-set_serial', '1', '-days', '1', '-out', 'leaf.pem']);
    const caPem = readFileSync(path.join(scratch, 'long-ca.pem'), 'utf8');
    const leafPem = readFileSync(path.join(scratch, 'leaf.pem'), 'utf8');
    assert.match(openssl(['x509', '-noout', '-text'], leafPem), /Version: 1 \(0x0\)/);
    const caSubject = nameDer(caName);
    const leafSubject = nameDer(leafName);
    assert.deepEqual([caSubject.subarray(0, 2), leafSubject.subarray(0, 2)], [Buffer.from([0x30, 0x82]), Buffer.from([0x30, 0x81])]);

    assert.deepEqual(tlsInfoOf(caPem), { trustRoot: caPem, issuerSubject: caSubject.toString('base64'), issuerPublicKey: spkiBase64(readFileSync(path.join(scratch, 'long-ca.key'), 'utf8')) });
    // the leaf's own subject, not the long issuer before it
    assert.equal(tlsInfoOf(leafPem).issuerSubject, leafSubject.toString('base64'));
    assert.equal(tlsInfoOf(leafPem).issuerPublicKey, spkiBase64(readFileSync(path.join(scratch, 'leaf.key'), 'utf8')));
    // a CN and an O, but an OU that is no swarm role: it names no node
    assert.equal(certificateIdentity(peerView(leafPem)), undefined);
  });
});

describe('the swarm CA', () => {
  let ca: RootCa;
  let caCert: X509Certificate;
  let issuer: CertificateIssuer;
  const manager: NodeIdentity = { nodeId: 'mgr0nodeid0000000000000000', role: 'manager', clusterId: 'cluster0id000000000000000' };
  const worker: NodeIdentity = { nodeId: 'wrk0nodeid0000000000000000', role: 'worker', clusterId: manager.clusterId };

  before(async () => {
    ca = await createRootCa(scratch);
    caCert = new X509Certificate(ca.certPem);
    issuer = new CertificateIssuer(ca, path.join(scratch, 'issuer'));
  });

  async function issued(identity: NodeIdentity, expiryMs = 90 * DAY_MS, ips: string[] = []) {
    const request = await newCertificateRequest(scratch);
    const certPem = await issuer.issue(request.csrPem, identity, expiryMs, ips);
    return { ...request, certPem, cert: new X509Certificate(certPem) };
  }

  it('makes a self-signed root CA, CN swarm-ca, valid 20 years, that may sign', () => {
    assert.equal(caCert.subject, 'CN=swarm-ca');
    assert.equal(caCert.issuer, 'CN=swarm-ca');
    assert.equal(caCert.ca, true);
    assert.equal(caCert.verify(caCert.publicKey), true);
    assert.equal(lifetimeMs(ca.certPem), 20 * 365 * DAY_MS);
    assert.equal(spkiBase64(ca.keyPem), caCert.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'));
    // no OU: it names no node
    assert.equal(certificateIdentity(peerView(ca.certPem)), undefined);
  });

  it("issues a manager's certificate as swarmkit's: CN the node, OU swarm-manager, O the cluster, for swarm-manager and swarm-ca", async () => {
    const { cert, certPem, keyPem } = await issued(manager, 90 * DAY_MS, ['10.213.0.1']);
    assert.equal(cert.verify(caCert.publicKey), true);
    assert.equal(cert.checkIssued(caCert), true);
    assert.equal(cert.ca, false);
    assert.deepEqual(cert.subject.split('\n').sort(), [`CN=${manager.nodeId}`, `O=${manager.clusterId}`, 'OU=swarm-manager']);
    // swarmkit's PrepareCSR: hosts = [ou, cn] and the CA role for managers; berth's managers also
    // serve their etcd member on 127.0.0.1 and their address, which etcd checks the certificate against
    assert.equal(cert.subjectAltName, `DNS:swarm-manager, DNS:${manager.nodeId}, DNS:swarm-ca, IP Address:127.0.0.1, IP Address:10.213.0.1`);
    assert.deepEqual([...(cert.keyUsage ?? [])].sort(), [SERVER_AUTH, CLIENT_AUTH]);
    assert.equal(cert.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'), spkiBase64(keyPem));
    assert.equal(cert.checkPrivateKey(createPrivateKey(keyPem)), true);
    assert.deepEqual(certificateIdentity(peerView(certPem)), manager);
  });

  it("issues a worker's certificate with OU swarm-worker, for swarm-worker only", async () => {
    const { cert, certPem } = await issued(worker);
    assert.equal(cert.verify(caCert.publicKey), true);
    assert.deepEqual(cert.subject.split('\n').sort(), [`CN=${worker.nodeId}`, `O=${worker.clusterId}`, 'OU=swarm-worker']);
    assert.equal(cert.subjectAltName, `DNS:swarm-worker, DNS:${worker.nodeId}`);
    assert.deepEqual([...(cert.keyUsage ?? [])].sort(), [SERVER_AUTH, CLIENT_AUTH]);
    assert.deepEqual(certificateIdentity(peerView(certPem)), worker);
  });

  it('makes certificates live as long as the expiry asks, in whole days, one at least', async () => {
    for (const [expiryMs, days] of [
      [90 * DAY_MS, 90], // swarmkit's default NodeCertExpiry
      [3600 * 1000, 1], // its minimum
      [36 * 3600 * 1000, 2],
      [0, 1],
    ]) {
      const { certPem } = await issued(worker, expiryMs);
      assert.equal(lifetimeMs(certPem), days * DAY_MS, `expiry ${expiryMs} ms`);
    }
  });

  it('gives each of several requests made at once a CSR of its own key', async () => {
    const requests = await Promise.all(Array.from({ length: 8 }, () => newCertificateRequest(scratch)));
    for (const { keyPem, csrPem } of requests) {
      const csrKey = createPublicKey(openssl(['req', '-noout', '-pubkey'], csrPem));
      assert.equal(csrKey.export({ type: 'spki', format: 'der' }).toString('base64'), spkiBase64(keyPem));
    }
  });

  describe('in a TLS handshake on loopback, the CA pinned and swarm-manager as the server name', () => {
    async function connect(server: { certPem: string; keyPem: string }): Promise<tls.PeerCertificate> {
      const listener = tls.createServer({ cert: server.certPem, key: server.keyPem }, (socket) => socket.end());
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = listener.address() as AddressInfo;
        return await new Promise<tls.PeerCertificate>((resolve, reject) => {
          const socket = tls.connect({ host: '127.0.0.1', port, ca: ca.certPem, servername: MANAGER_NAME }, () => {
            resolve(socket.getPeerCertificate());
            socket.destroy();
          });
          socket.once('error', reject);
        });
      } finally {
        await new Promise((resolve) => listener.close(resolve));
      }
    }

    it("accepts a manager's certificate, whose peer certificate names the manager", async () => {
      const { certPem, keyPem } = await issued(manager);
      const peer = await connect({ certPem, keyPem });
      assert.deepEqual(certificateIdentity(peer), manager);
    });

    it("refuses a worker's certificate: it is not for swarm-manager", async () => {
      const { certPem, keyPem } = await issued(worker);
      await assert.rejects(connect({ certPem, keyPem }), (err: NodeJS.ErrnoException) => {
        assert.equal(err.code, 'ERR_TLS_CERT_ALTNAME_INVALID');
        return true;
      });
    });
  });
});
