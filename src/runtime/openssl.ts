// The certificates of a swarm, made by openssl (what the setup installs for TLS already): a
// self-signed root CA, certificate requests, and certificates signed from a request with the
// subject and extensions the CA chooses (swarmkit ignores what a request asks for, and so does
// this). Keys come from the caller in files it keeps private; nothing here logs them.
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { runCommand } from './child-process.js';

const OPENSSL = 'openssl';

/** A self-signed CA certificate (PEM) for the key in `keyFile`. */
export async function selfSignedCaCertificate(keyFile: string, commonName: string, days: number): Promise<string> {
  const args = ['req', '-x509', '-new', '-sha256', '-key', keyFile, '-subj', `/CN=${commonName}`, '-days', String(days), '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'];
  return (await runCommand(OPENSSL, args, { timeoutMs: 10_000 })).stdout.toString('utf8');
}

/** A certificate request (PEM) for the key in `keyFile`; its subject is a placeholder the CA replaces. */
export async function certificateRequest(keyFile: string): Promise<string> {
  return (await runCommand(OPENSSL, ['req', '-new', '-sha256', '-key', keyFile, '-subj', '/CN=swarm-node'], { timeoutMs: 10_000 })).stdout.toString('utf8');
}

export interface SigningRequest {
  csrPem: string;
  caCertFile: string;
  caKeyFile: string;
  /** `/O=…/OU=…/CN=…` */
  subject: string;
  /** an openssl extensions section's lines, e.g. `subjectAltName=DNS:a` */
  extensions: readonly string[];
  days: number;
  /** a private folder for the extensions file */
  workDir: string;
}

/** A certificate (PEM) for the request's key, with the subject and extensions given. */
export async function signCertificateRequest(req: SigningRequest): Promise<string> {
  const extFile = path.join(req.workDir, `ext-${randomBytes(6).toString('hex')}.cnf`);
  await writeFile(extFile, `${req.extensions.join('\n')}\n`, { mode: 0o600 });
  const serial = `0x${randomBytes(16).toString('hex')}`;
  const args = ['x509', '-req', '-sha256', '-CA', req.caCertFile, '-CAkey', req.caKeyFile, '-set_serial', serial, '-days', String(req.days), '-subj', req.subject, '-extfile', extFile];
  try {
    return (await runCommand(OPENSSL, args, { input: req.csrPem, timeoutMs: 10_000 })).stdout.toString('utf8');
  } finally {
    await rm(extFile, { force: true });
  }
}
