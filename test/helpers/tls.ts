// TLS fixtures made offline with openssl: a CA, a server certificate for 127.0.0.1, a client
// certificate it signed, and a client certificate from another CA that must be refused; and
// certificates like the ones a swarm CA gives its nodes, from the same CA.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

export interface TlsFixtures {
  dir: string;
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  rogueClientCert: string;
  rogueClientKey: string;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

function makeCa(dir: string, name: string): void {
  openssl(dir, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${name}`, '-keyout', `${name}-key.pem`, '-out', `${name}.pem`]);
}

function makeSigned(dir: string, ca: string, name: string, ext: string, keyArgs = ['-newkey', 'rsa:2048']): void {
  writeFileSync(path.join(dir, `${name}.ext`), ext);
  openssl(dir, ['req', ...keyArgs, '-nodes', '-subj', `/CN=${name}`, '-keyout', `${name}-key.pem`, '-out', `${name}.csr`]);
  openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.pem`, '-CAkey', `${ca}-key.pem`, '-CAcreateserial', '-days', '2', '-extfile', `${name}.ext`, '-out', `${name}.pem`]);
}

export function makeTlsFixtures(dir: string): TlsFixtures {
  makeCa(dir, 'ca');
  makeCa(dir, 'rogue-ca');
  makeSigned(dir, 'ca', 'server', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  makeSigned(dir, 'ca', 'client', 'extendedKeyUsage=clientAuth\n');
  makeSigned(dir, 'rogue-ca', 'rogue-client', 'extendedKeyUsage=clientAuth\n');
  const p = (f: string) => path.join(dir, f);
  return {
    dir,
    ca: p('ca.pem'),
    serverCert: p('server.pem'),
    serverKey: p('server-key.pem'),
    clientCert: p('client.pem'),
    clientKey: p('client-key.pem'),
    rogueClientCert: p('rogue-client.pem'),
    rogueClientKey: p('rogue-client-key.pem'),
  };
}

/**
 * A node's certificate as swarmkit's CA makes them, signed by the fixtures' CA: DNS SANs
 * swarm-manager (or swarm-worker) and the node's name, an EC P-256 key, for serving and as a
 * client; with an IP SAN for the node's address, which etcd's peers need (src/runtime/etcd-member.ts).
 */
export function makeNodeCert(fixtures: TlsFixtures, name: string, role: 'manager' | 'worker', ip: string): { cert: string; key: string } {
  const ext = `subjectAltName=DNS:swarm-${role},DNS:${name},IP:${ip}\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\n`;
  makeSigned(fixtures.dir, 'ca', name, ext, ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1']);
  return { cert: path.join(fixtures.dir, `${name}.pem`), key: path.join(fixtures.dir, `${name}-key.pem`) };
}
