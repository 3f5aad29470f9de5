// The distribution API v2 spoken to one registry for one repository's operation: the endpoint
// found by pinging /v2/ (HTTPS, then plain HTTP where Docker allows it), then each request
// authorized as the registry asks: HTTP basic, or a bearer token fetched from the challenge's
// realm (`token` or `access_token`), kept until it expires and fetched again when it does or when
// the registry refuses it. Redirects are followed (to blob storage: without the credentials).
// Credentials stay in this object, which lives as long as the request that brought them.
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { EngineError } from '../../errors.js';
import type { AuthConfig } from './auth-header.js';
import type { RegistryEndpoint } from './registry-hosts.js';

const USER_AGENT = 'berth (docker-compatible)';
const MAX_REDIRECTS = 10;
/** a registry that takes longer than this to answer a request's head is taken as gone */
const HEAD_TIMEOUT_MS = 60_000;
/** tokens without expires_in last 60 s (the distribution spec's default) */
const DEFAULT_TOKEN_SECONDS = 60;

export interface RegistryResponse {
  status: number;
  headers: IncomingMessage['headers'];
  body: IncomingMessage;
  /** the URL that answered, after redirects */
  url: string;
}

interface Challenge {
  scheme: 'basic' | 'bearer';
  params: Record<string, string>;
}

/** A failure of the registry or of reaching it, in Go's words where clients read them. */
export class RegistryError extends EngineError {
  constructor(
    message: string,
    readonly status?: number,
    readonly code?: string,
  ) {
    super(status === 401 ? 'unauthorized' : status === 404 ? 'notFound' : 'system', message);
    this.name = 'RegistryError';
  }
}

export class RegistryClient {
  private endpoint: RegistryEndpoint | undefined;
  private challenge: Challenge | undefined;
  private readonly tokens = new Map<string, { token: string; expiresAt: number }>();

  constructor(
    private readonly endpoints: readonly RegistryEndpoint[],
    private readonly auth: AuthConfig | undefined,
    private readonly signal?: AbortSignal,
  ) {}

  /** GET /v2/ on each endpoint in turn: the first that answers is the one used; its challenge is kept. */
  async ping(): Promise<void> {
    if (this.endpoint !== undefined) return;
    let lastError: unknown;
    for (const endpoint of this.endpoints) {
      try {
        const res = await this.send(endpoint, 'GET', `${endpoint.url}/v2/`, {});
        res.body.resume();
        if (res.status !== 200 && res.status !== 401) throw new RegistryError(`GET ${endpoint.url}/v2/: unexpected status ${res.status}`, res.status);
        this.endpoint = endpoint;
        this.challenge = parseChallenge(res.headers['www-authenticate']);
        return;
      } catch (err) {
        lastError = err;
      }
    }
    throw lastError instanceof Error ? lastError : new RegistryError(String(lastError));
  }

  /**
   * One request under `scope` (repository:<name>:pull[,push]); a refused token is fetched again
   * once. `body` is sent as it is; a stream body can't be sent twice, so its token is made sure of first.
   */
  async request(method: string, urlPath: string, opts: { scope?: string; headers?: OutgoingHttpHeaders; body?: Buffer | (() => Readable) } = {}): Promise<RegistryResponse> {
    await this.ping();
    const endpoint = this.endpoint as RegistryEndpoint;
    const url = urlPath.startsWith('http') ? urlPath : `${endpoint.url}${urlPath}`;
    let authorization = await this.authorization(opts.scope, false, method, url);
    let res = await this.followRedirects(endpoint, method, url, { ...opts.headers, ...(authorization ? { Authorization: authorization } : {}) }, opts.body);
    if (res.status === 401 && this.challenge?.scheme === 'bearer') {
      res.body.resume();
      authorization = await this.authorization(opts.scope, true, method, url);
      res = await this.followRedirects(endpoint, method, url, { ...opts.headers, ...(authorization ? { Authorization: authorization } : {}) }, opts.body);
    }
    return res;
  }

  /** The Authorization header the registry's challenge asks for under the scope; `renew` fetches a new token. */
  private async authorization(scope: string | undefined, renew: boolean, method: string, url: string): Promise<string | undefined> {
    const c = this.challenge;
    if (c === undefined) return undefined;
    if (c.scheme === 'basic') {
      const basic = basicOf(this.auth);
      if (basic === undefined) throw new RegistryError(`${goMethod(method)} "${url}": no basic auth credentials`);
      return basic;
    }
    if (this.auth?.registrytoken) return `Bearer ${this.auth.registrytoken}`;
    const key = scope ?? '';
    const cached = this.tokens.get(key);
    if (!renew && cached && cached.expiresAt > Date.now()) return `Bearer ${cached.token}`;
    const token = await this.fetchToken(c.params, scope);
    this.tokens.set(key, token);
    return `Bearer ${token.token}`;
  }

  /** A token from the realm: GET with basic credentials, or POST with the identity token as a refresh token (OAuth), as dockerd. */
  private async fetchToken(params: Record<string, string>, scope: string | undefined): Promise<{ token: string; expiresAt: number }> {
    const realm = params.realm;
    if (!realm) throw new RegistryError('the registry asked for a bearer token without naming its realm');
    const endpoint = this.endpoint as RegistryEndpoint;
    const url = new URL(realm);
    let res: RegistryResponse;
    if (this.auth?.identitytoken) {
      const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: this.auth.identitytoken, client_id: 'docker', ...(params.service ? { service: params.service } : {}), ...(scope ? { scope } : {}) });
      const body = Buffer.from(form.toString());
      res = await this.send(endpoint, 'POST', url.toString(), { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': body.length }, body);
    } else {
      if (params.service) url.searchParams.set('service', params.service);
      if (scope) url.searchParams.set('scope', scope);
      const basic = basicOf(this.auth);
      res = await this.send(endpoint, 'GET', url.toString(), basic ? { Authorization: basic } : {});
    }
    const text = await readText(res.body);
    if (res.status !== 200) throw new RegistryError(`${registryReason(text, res.status)}`, res.status === 400 || res.status === 403 ? 401 : res.status);
    let answer: { token?: string; access_token?: string; expires_in?: number; issued_at?: string };
    try {
      answer = JSON.parse(text) as typeof answer;
    } catch {
      throw new RegistryError(`the token server answered without JSON`);
    }
    const token = answer.token || answer.access_token;
    if (!token) throw new RegistryError('the token server answered without a token');
    const seconds = typeof answer.expires_in === 'number' && answer.expires_in > 0 ? answer.expires_in : DEFAULT_TOKEN_SECONDS;
    const issued = answer.issued_at ? Date.parse(answer.issued_at) : NaN;
    const from = Number.isNaN(issued) ? Date.now() : Math.min(issued, Date.now());
    // a few seconds early, so a token does not run out between the check and the request
    return { token, expiresAt: from + seconds * 1000 - 5_000 };
  }

  private async followRedirects(endpoint: RegistryEndpoint, method: string, url: string, headers: OutgoingHttpHeaders, body: Buffer | (() => Readable) | undefined): Promise<RegistryResponse> {
    let current = url;
    let sendHeaders = headers;
    for (let hops = 0; ; hops++) {
      const res = await this.send(endpoint, method, current, sendHeaders, typeof body === 'function' ? body() : body);
      const location = res.headers.location;
      if (![301, 302, 303, 307, 308].includes(res.status) || location === undefined || hops >= MAX_REDIRECTS) return res;
      res.body.resume();
      const next = new URL(location, current);
      // credentials go to the registry only, never to the storage it redirects to
      if (next.host !== new URL(current).host) sendHeaders = Object.fromEntries(Object.entries(sendHeaders).filter(([k]) => k.toLowerCase() !== 'authorization'));
      current = next.toString();
    }
  }

  /** One HTTP exchange: the head answered, the body left to read. */
  private send(endpoint: RegistryEndpoint, method: string, url: string, headers: OutgoingHttpHeaders, body?: Buffer | Readable): Promise<RegistryResponse> {
    const u = new URL(url);
    const secure = u.protocol === 'https:';
    const request = secure ? httpsRequest : httpRequest;
    const sameHost = u.host === new URL(endpoint.url).host;
    const tls = secure && sameHost && endpoint.tls ? endpoint.tls : {};
    return new Promise((resolve, reject) => {
      const req = request(
        u,
        { method, headers: { 'User-Agent': USER_AGENT, ...headers }, signal: this.signal, ...tls },
        (res) => {
          req.setTimeout(0);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: res, url });
        },
      );
      req.setTimeout(HEAD_TIMEOUT_MS, () => req.destroy(new Error('timeout awaiting response headers')));
      req.on('error', (err) => reject(new RegistryError(`${goMethod(method)} "${url}": ${describeNetworkError(err, u)}`)));
      if (body === undefined) req.end();
      else if (Buffer.isBuffer(body)) req.end(body);
      else {
        body.on('error', (err) => req.destroy(err));
        body.pipe(req);
      }
    });
  }
}

function basicOf(auth: AuthConfig | undefined): string | undefined {
  if (!auth?.username && !auth?.password) return undefined;
  return `Basic ${Buffer.from(`${auth.username ?? ''}:${auth.password ?? ''}`).toString('base64')}`;
}

/** `Bearer realm="...",service="...",scope="..."` or `Basic realm="..."`. */
export function parseChallenge(header: string | string[] | undefined): Challenge | undefined {
  const text = Array.isArray(header) ? header[0] : header;
  if (!text) return undefined;
  const space = text.indexOf(' ');
  const scheme = (space < 0 ? text : text.slice(0, space)).toLowerCase();
  if (scheme !== 'basic' && scheme !== 'bearer') return undefined;
  const params: Record<string, string> = {};
  for (const m of text.slice(space + 1).matchAll(/([a-zA-Z_]+)="([^"]*)"|([a-zA-Z_]+)=([^,\s]*)/g)) {
    const key = (m[1] ?? m[3]).toLowerCase();
    params[key] = m[2] ?? m[4];
  }
  return { scheme, params };
}

/** The reason a registry gives, as dockerd words it: "<code, in words>: <message>" from distribution's error body, else the status. */
export function registryReason(text: string, status: number): string {
  try {
    const body = JSON.parse(text) as { errors?: Array<{ code?: string; message?: string; detail?: unknown }>; details?: string; message?: string };
    const first = body.errors?.[0];
    if (first?.message) return first.code ? `${first.code.toLowerCase().replace(/_/g, ' ')}: ${first.message}` : first.message;
    if (body.details) return body.details;
    if (body.message) return body.message;
  } catch {
    // not JSON: the status says it
  }
  return status === 401 ? 'unauthorized: authentication required' : `unexpected status ${status}`;
}

export async function readText(body: Readable, limit = 1024 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      body.destroy();
      throw new RegistryError(`the registry's answer is over ${limit} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function goMethod(method: string): string {
  return method.charAt(0) + method.slice(1).toLowerCase();
}

/** Go's wording of a failed dial, which users know from dockerd. */
function describeNetworkError(err: NodeJS.ErrnoException, url: URL): string {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const target = `${url.hostname}:${port}`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${target}: connect: connection refused`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${url.hostname}: no such host`;
    case 'ETIMEDOUT':
      return `dial tcp ${target}: i/o timeout`;
    case 'ECONNRESET':
      return 'connection reset by peer';
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `x509: certificate is not valid for ${url.hostname}`;
    default:
      return err.message;
  }
}
