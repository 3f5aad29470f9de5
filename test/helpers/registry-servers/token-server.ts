// The token server of the bearer-token tests (the distribution spec's "token authentication"),
// run in berthd's network namespace beside the registry: GET /token?service=&scope= with HTTP
// basic credentials (or none: anonymous), and POST /token with an OAuth2 form (grant_type
// password or refresh_token), answered with a JWT the registry trusts (ES256, the signing
// certificate in the header's x5c and in the registry's rootcertbundle).
// Its settings are read from a JSON file at each request, so a test can change them while it runs.
// Prints {"port":N} once listening, then one JSON line per request (never a password).
// Usage: node token-server.js <settings.json>
import { createPrivateKey, randomUUID, sign, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';

export interface TokenServerSettings {
  issuer: string;
  service: string;
  keyFile: string;
  certFile: string;
  /** user → password */
  users: Record<string, string>;
  /** what an anonymous request is granted: pull, or nothing */
  anonymous: 'pull' | 'none';
  /** which fields of the answer carry the token */
  field: 'token' | 'access_token' | 'both';
  /** expires_in in the answer, and how long the registry takes the token for (see lifetime) */
  expiresIn: number;
  /**
   * The seconds the registry accepts the token for: the registry allows 60 s of clock skew past
   * `exp`, so a short lifetime is made by an `exp` set in the past by the difference. Unset: expiresIn.
   */
  lifetime?: number;
}

const settingsFile = process.argv[2];
const settings = (): TokenServerSettings => JSON.parse(readFileSync(settingsFile, 'utf8')) as TokenServerSettings;
const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');
const refreshTokens = new Map<string, string>();

function jwt(s: TokenServerSettings, subject: string, access: Array<{ type: string; name: string; actions: string[] }>): string {
  const cert = new X509Certificate(readFileSync(s.certFile));
  const key = createPrivateKey(readFileSync(s.keyFile));
  const now = Math.floor(Date.now() / 1000);
  // the registry takes a token for 60 s past its exp (clock skew): a shorter lifetime moves exp back
  const exp = s.lifetime !== undefined ? now + s.lifetime - 60 : now + s.expiresIn;
  const header = { typ: 'JWT', alg: 'ES256', x5c: [cert.raw.toString('base64')] };
  const claims = { iss: s.issuer, sub: subject, aud: s.service, exp, nbf: now - 10, iat: now, jti: randomUUID(), access };
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  const signature = sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
  return `${input}.${b64url(signature)}`;
}

function grant(s: TokenServerSettings, user: string | undefined, scopes: string[]): Array<{ type: string; name: string; actions: string[] }> {
  const access = [];
  for (const scope of scopes.flatMap((x) => x.split(' ')).filter((x) => x !== '')) {
    const first = scope.indexOf(':');
    const last = scope.lastIndexOf(':');
    if (first < 0 || last === first) continue;
    const type = scope.slice(0, first);
    const name = scope.slice(first + 1, last);
    const wanted = scope.slice(last + 1).split(',');
    const actions = user !== undefined ? wanted : s.anonymous === 'pull' ? wanted.filter((a) => a === 'pull') : [];
    access.push({ type, name, actions });
  }
  return access;
}

function log(entry: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(entry)}\n`);
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const s = settings();
    const url = new URL(req.url ?? '/', 'http://token');
    const form = req.method === 'POST' ? new URLSearchParams(Buffer.concat(chunks).toString('utf8')) : undefined;
    const scopes = [...url.searchParams.getAll('scope'), ...(form?.getAll('scope') ?? [])];
    const fail = (status: number, why: string) => {
      log({ method: req.method, path: url.pathname, status, why, scopes });
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ errors: [{ code: 'UNAUTHORIZED', message: why }], details: why }));
    };
    let user: string | undefined;
    let grantType = 'anonymous';
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
    if (basic) {
      const [name, ...rest] = Buffer.from(basic[1], 'base64').toString('utf8').split(':');
      if (s.users[name] === undefined || s.users[name] !== rest.join(':')) return fail(401, 'invalid username or password');
      user = name;
      grantType = 'basic';
    } else if (form?.get('grant_type') === 'password') {
      const name = form.get('username') ?? '';
      if (s.users[name] === undefined || s.users[name] !== form.get('password')) return fail(401, 'invalid username or password');
      user = name;
      grantType = 'password';
    } else if (form?.get('grant_type') === 'refresh_token') {
      user = refreshTokens.get(form.get('refresh_token') ?? '');
      if (user === undefined) return fail(401, 'invalid refresh token');
      grantType = 'refresh_token';
    } else if (req.headers.authorization !== undefined) {
      return fail(401, 'unsupported authorization');
    }
    const access = grant(s, user, scopes);
    const token = jwt(s, user ?? '', access);
    const answer: Record<string, unknown> = { expires_in: s.expiresIn, issued_at: new Date().toISOString() };
    if (s.field !== 'access_token') answer.token = token;
    if (s.field !== 'token') answer.access_token = token;
    const wantsRefresh = url.searchParams.get('offline_token') === 'true' || form?.get('access_type') === 'offline';
    if (user !== undefined && wantsRefresh) {
      const refresh = randomUUID();
      refreshTokens.set(refresh, user);
      answer.refresh_token = refresh;
    }
    log({ method: req.method, path: url.pathname, status: 200, grantType, user: user ?? null, service: url.searchParams.get('service') ?? form?.get('service') ?? null, scopes, access, field: s.field });
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(answer));
  });
});
server.listen(0, '127.0.0.1', () => {
  log({ port: (server.address() as { port: number }).port });
});
