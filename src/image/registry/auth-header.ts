// The X-Registry-Auth header: a JSON AuthConfig in base64, URL-safe (RFC 4648 §5) as API 1.41
// clients send it, or standard as older ones do; taken in either alphabet, padded or not, on every
// version. The credentials it carries live as long as the request: never stored, never logged.
import { invalidParameter } from '../../errors.js';


export interface AuthConfig {
  username?: string;
  password?: string;
  /** a token from an earlier login, in place of a password */
  identitytoken?: string;
  /** a bearer token to use as it is */
  registrytoken?: string;
  serveraddress?: string;
}

/** The header's credentials; undefined when it is absent or empty. A header that is not base64 JSON is a 400. */
export function decodeAuthHeader(header: string | undefined): AuthConfig | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const text = header.trim();
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(text)) throw invalidParameter('invalid X-Registry-Auth header: not base64');
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8'));
  } catch {
    throw invalidParameter('invalid X-Registry-Auth header: not a JSON object');
  }
  if (decoded === null || typeof decoded !== 'object' || Array.isArray(decoded)) throw invalidParameter('invalid X-Registry-Auth header: not a JSON object');
  return authConfig(decoded as Record<string, unknown>);
}

/** An AuthConfig from a decoded JSON object (POST /auth's body), its keys matched without case as Go's decoder does. */
export function authConfig(raw: Record<string, unknown>): AuthConfig {
  const get = (name: string): string | undefined => {
    const key = Object.keys(raw).find((k) => k.toLowerCase() === name);
    const v = key === undefined ? undefined : raw[key];
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  const out: AuthConfig = {};
  for (const name of ['username', 'password', 'identitytoken', 'registrytoken', 'serveraddress'] as const) {
    const v = get(name);
    if (v !== undefined) out[name] = v;
  }
  return out;
}

/** POST /auth's body: an AuthConfig as JSON. */
export function loginBody(body: unknown): AuthConfig {
  if (body === undefined) throw invalidParameter('got EOF while reading request body');
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidParameter('json: cannot unmarshal into Go value of type types.AuthConfig');
  return authConfig(body as Record<string, unknown>);
}
