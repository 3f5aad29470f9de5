// What asks a registry without moving images: POST /auth (a login checked against the registry),
// GET /distribution/{name}/json (the manifest's descriptor and platforms) and GET /images/search.
import { EngineError, invalidParameter } from '../../errors.js';
import { hostPlatform } from '../platform.js';
import { familiarString, parseNormalizedReference, withDefaultTag } from '../reference.js';
import type { AuthConfig } from './auth-header.js';
import { MANIFEST_ACCEPT, manifestDigest, parseManifest } from './manifests.js';
import { RegistryClient, RegistryError, readText, registryReason } from './registry-client.js';
import { DOCKER_HUB, endpointsFor, type RegistrySettings } from './registry-hosts.js';

export interface DistributionInspect {
  Descriptor: { mediaType: string; digest: string; size: number };
  Platforms: Array<{ architecture: string; os: string; variant?: string; 'os.version'?: string; 'os.features'?: string[] }>;
}

/** The registry domain a login's server address names: Docker Hub for none or its v1 URL. */
function loginDomain(serverAddress: string | undefined): string {
  if (!serverAddress || /^(https?:\/\/)?(index\.)?docker\.io(\/v1\/?)?$/.test(serverAddress) || serverAddress.startsWith('https://index.docker.io')) return DOCKER_HUB;
  return serverAddress.replace(/^https?:\/\//, '').replace(/\/.*$/, '');
}

/** An address Go's url.Parse refuses is dockerd's 400, in its words for the usual mistakes. */
function checkServerAddress(address: string | undefined): void {
  if (!address) return;
  const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(address) ? address : `https://${address}`;
  const host = url.replace(/^[^:]+:\/\//, '').replace(/\/.*$/, '');
  const space = /[\s"<>\\^`{|}]/.exec(host);
  const port = /:([^:\]]*)$/.exec(host.replace(/^\[[^\]]*\]/, ''));
  // Go's url.Parse looks at the port before the host's characters
  let reason: string | undefined;
  if (port !== null && !/^\d*$/.test(port[1])) reason = `invalid port ${JSON.stringify(`:${port[1]}`)} after host`;
  else if (space !== null) reason = `invalid character ${JSON.stringify(space[0])} in host name`;
  if (reason !== undefined) throw invalidParameter(`unable to parse server address: parse ${JSON.stringify(url)}: ${reason}`);
}

/** Checks the credentials against the registry: its /v2/ with basic auth, or a token from its realm. A refusal is a 401 in dockerd's words. */
export async function login(settings: RegistrySettings, auth: AuthConfig): Promise<{ Status: string; IdentityToken: string }> {
  checkServerAddress(auth.serveraddress);
  const client = new RegistryClient(endpointsFor(loginDomain(auth.serveraddress), settings), auth);
  let res;
  try {
    res = await client.request('GET', '/v2/');
  } catch (err) {
    // the token server refused the credentials
    if (err instanceof RegistryError && err.status === 401) throw new EngineError('unauthorized', err.message);
    throw err;
  }
  res.body.resume();
  if (res.status === 401) throw new EngineError('unauthorized', `login attempt to ${res.url} failed with status: 401 Unauthorized`);
  if (res.status !== 200) throw new RegistryError(`login attempt to ${res.url} failed with status: ${res.status}`, res.status);
  return { Status: 'Login Succeeded', IdentityToken: '' };
}

export async function distributionInspect(settings: RegistrySettings, name: string, auth: AuthConfig | undefined): Promise<DistributionInspect> {
  const ref = withDefaultTag(parseNormalizedReference(name));
  const client = new RegistryClient(endpointsFor(ref.domain, settings), auth);
  const scope = `repository:${ref.path}:pull`;
  const res = await client.request('GET', `/v2/${ref.path}/manifests/${ref.digest ?? ref.tag}`, { scope, headers: { Accept: MANIFEST_ACCEPT } });
  const bytes = Buffer.from(await readText(res.body, 4 * 1024 * 1024));
  if (res.status === 401 || res.status === 403) throw new EngineError('unauthorized', `errors:\ndenied: requested access to the resource is denied\nunauthorized: authentication required\n`);
  if (res.status === 404) throw new EngineError('notFound', `${familiarString(ref)}: not found`);
  if (res.status !== 200) throw new RegistryError(registryReason(bytes.toString(), res.status), res.status);
  const manifest = parseManifest(bytes, res.headers['content-type']);
  const descriptor = { mediaType: manifest.mediaType, digest: manifestDigest(bytes), size: bytes.length };
  if (manifest.kind === 'list') {
    return {
      Descriptor: descriptor,
      Platforms: manifest.manifests.map((m) => ({ architecture: m.platform?.architecture ?? '', os: m.platform?.os ?? '', ...(m.platform?.variant ? { variant: m.platform.variant } : {}) })),
    };
  }
  // a single image: its platform is its config's
  const configRes = await client.request('GET', `/v2/${ref.path}/blobs/${manifest.config.digest}`, { scope });
  const configText = await readText(configRes.body, 16 * 1024 * 1024);
  if (configRes.status !== 200) throw new RegistryError(registryReason(configText, configRes.status), configRes.status);
  const config = JSON.parse(configText) as { architecture?: string; os?: string; variant?: string };
  const host = hostPlatform();
  return { Descriptor: descriptor, Platforms: [{ architecture: config.architecture ?? host.architecture, os: config.os ?? host.os, ...(config.variant ? { variant: config.variant } : {}) }] };
}

/** The registry's search (Docker Hub's v1 API); a registry without one answers its own error. */
export async function search(settings: RegistrySettings, term: string, limit: number, auth: AuthConfig | undefined): Promise<Array<{ name: string; description: string; star_count: number; is_official: boolean; is_automated: boolean }>> {
  if (term.trim() === '') throw invalidParameter('term is required');
  const slash = term.indexOf('/');
  const first = slash < 0 ? '' : term.slice(0, slash);
  const domain = /[.:]/.test(first) || first === 'localhost' ? first : DOCKER_HUB;
  const query = domain === DOCKER_HUB ? term : term.slice(slash + 1);
  const client = new RegistryClient(endpointsFor(domain, settings), auth);
  const res = await client.request('GET', `/v1/search?q=${encodeURIComponent(query)}&n=${limit}`);
  const text = await readText(res.body);
  if (res.status !== 200) throw new RegistryError(`Unexpected status code ${res.status}`, res.status === 404 ? 500 : res.status);
  const body = JSON.parse(text) as { results?: Array<{ name: string; description?: string; star_count?: number; is_official?: boolean; is_automated?: boolean }> };
  return (body.results ?? []).map((r) => ({ name: r.name, description: r.description ?? '', star_count: r.star_count ?? 0, is_official: r.is_official ?? false, is_automated: r.is_automated ?? false }));
}
