// Where a registry is reached and how: Docker Hub names go to its mirrors (registry-mirrors) and
// then to registry-1.docker.io; a registry listed in insecure-registries (a host:port or a CIDR)
// or on 127.0.0.0/8 is tried over HTTPS without verification and then over plain HTTP, as
// dockerd does; any other over HTTPS alone, trusting the system's CAs plus the registry's own
// certs.d folder (`<certs-dir>/<host:port>/`: every *.crt a CA, a *.cert with its *.key a client
// certificate), as Docker reads it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { rootCertificates } from 'node:tls';

export interface RegistrySettings {
  insecureRegistries: readonly string[];
  mirrors: readonly string[];
  /** the certs.d folder: /etc/docker/certs.d unless the daemon says otherwise */
  certsDir: string;
}

export interface RegistryEndpoint {
  /** what URLs are made of: https://<authority>/v2/... */
  url: string;
  /** HTTPS options: the CAs and client certificate, or no verification for an insecure registry */
  tls?: { ca?: string[]; cert?: Buffer; key?: Buffer; rejectUnauthorized: boolean };
}

export const DOCKER_HUB = 'docker.io';
const HUB_REGISTRY = 'registry-1.docker.io';

/** The endpoints to try for a reference's domain, in order. */
export function endpointsFor(domain: string, settings: RegistrySettings): RegistryEndpoint[] {
  if (domain === DOCKER_HUB) {
    const mirrors = settings.mirrors.map((m) => m.replace(/\/+$/, ''));
    return [...mirrors.flatMap((m) => endpointsOfUrl(m, settings)), ...hostEndpoints(HUB_REGISTRY, settings)];
  }
  return hostEndpoints(domain, settings);
}

function endpointsOfUrl(url: string, settings: RegistrySettings): RegistryEndpoint[] {
  const parsed = new URL(url);
  if (parsed.protocol === 'http:') return [{ url: `http://${parsed.host}` }];
  return hostEndpoints(parsed.host, settings);
}

function hostEndpoints(host: string, settings: RegistrySettings): RegistryEndpoint[] {
  const certs = certsFor(host, settings.certsDir);
  if (isInsecure(host, settings.insecureRegistries)) {
    return [{ url: `https://${host}`, tls: { ...certs, rejectUnauthorized: false } }, { url: `http://${host}` }];
  }
  return [{ url: `https://${host}`, tls: { ...certs, rejectUnauthorized: true } }];
}

/** A registry Docker reaches without verification: listed, within a listed CIDR, or on loopback. */
export function isInsecure(host: string, insecure: readonly string[]): boolean {
  if (insecure.includes(host)) return true;
  let hostname: string;
  try {
    hostname = new URL(`http://${host}`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    // no host a URL can name: nothing to trust without verification
    return false;
  }
  const address = hostname === 'localhost' ? '127.0.0.1' : hostname;
  if (isIP(address) !== 4) return false;
  return ['127.0.0.0/8', ...insecure].some((cidr) => inCidr(address, cidr));
}

function inCidr(address: string, cidr: string): boolean {
  const [base, bits] = cidr.split('/');
  if (bits === undefined || isIP(base) !== 4) return false;
  const prefix = Number(bits);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > 32) return false;
  const toInt = (a: string) => a.split('.').reduce((n, part) => (n << 8) + Number(part), 0) >>> 0;
  const mask = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
  return (toInt(address) & mask) === (toInt(base) & mask);
}

/** The registry's own CAs and client certificate from certs.d, with the system's CAs. */
function certsFor(host: string, certsDir: string): { ca?: string[]; cert?: Buffer; key?: Buffer } {
  const dir = path.join(certsDir, host.replace(/[/\\]/g, '_'));
  if (!existsSync(dir)) return {};
  const files = readdirSync(dir).sort();
  const cas = files.filter((f) => f.endsWith('.crt')).map((f) => readFileSync(path.join(dir, f), 'utf8'));
  const out: { ca?: string[]; cert?: Buffer; key?: Buffer } = {};
  if (cas.length > 0) out.ca = [...rootCertificates, ...cas];
  const cert = files.find((f) => f.endsWith('.cert'));
  if (cert !== undefined) {
    const key = cert.replace(/\.cert$/, '.key');
    if (!files.includes(key)) throw new Error(`missing key ${key} for client certificate ${cert} in ${dir}`);
    out.cert = readFileSync(path.join(dir, cert));
    out.key = readFileSync(path.join(dir, key));
  }
  return out;
}
