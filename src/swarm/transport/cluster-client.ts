// Calls to a manager's cluster port. A node with certificates pins the swarm's root CA and checks
// that the other end holds a manager's certificate (the name `swarm-manager`, as swarmkit's
// ServerName); only fetching the root CA before a join trusts nothing, and the join then checks
// what it got against the token's digest.
import https from 'node:https';
import { EngineError, type ErrorKind } from '../../errors.js';
import { MANAGER_NAME } from '../ca/swarm-ca.js';
import { CLUSTER_PATHS, type ErrorBody } from './cluster-protocol.js';

const DEFAULT_TIMEOUT_MS = 10_000;

export interface ClientCredentials {
  rootCaPem: string;
  /** absent for a join, which has no certificate yet */
  certPem?: string;
  keyPem?: string;
}

/** The manager could not be reached, or did not answer in time. */
export class ManagerUnreachableError extends Error {
  constructor(
    readonly addr: string,
    cause: unknown,
  ) {
    super(`could not reach manager ${addr}: ${(cause as Error).message}`, { cause });
    this.name = 'ManagerUnreachableError';
  }
}

/** The root CA a manager shows, trusting nothing: the caller checks it. */
export async function fetchRootCa(addr: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<string> {
  const body = (await call(addr, 'GET', CLUSTER_PATHS.rootCa, undefined, { rejectUnauthorized: false }, timeoutMs)) as { rootCaPem?: unknown };
  if (typeof body.rootCaPem !== 'string') throw new ManagerUnreachableError(addr, new Error('no root CA in its answer'));
  return body.rootCaPem;
}

/** A call to the manager at `addr` (host:port) with the node's credentials. */
export function callManager<T>(addr: string, path: string, body: unknown, creds: ClientCredentials, timeoutMs = DEFAULT_TIMEOUT_MS, signal?: AbortSignal): Promise<T> {
  return call(addr, 'POST', path, body, { ca: creds.rootCaPem, cert: creds.certPem, key: creds.keyPem, servername: MANAGER_NAME, rejectUnauthorized: true, ...(signal !== undefined ? { signal } : {}) }, timeoutMs) as Promise<T>;
}

function call(addr: string, method: string, path: string, body: unknown, tls: https.RequestOptions, timeoutMs: number): Promise<unknown> {
  const { host, port } = splitHostPort(addr);
  const text = body === undefined ? '' : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request({ host, port, method, path, agent: false, timeout: timeoutMs, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }, ...tls }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (err) => reject(new ManagerUnreachableError(addr, err)));
      res.on('end', () => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch (err) {
          reject(new ManagerUnreachableError(addr, err));
          return;
        }
        if (res.statusCode === 200) resolve(parsed);
        else {
          const e = parsed as ErrorBody;
          reject(new EngineError((e.kind ?? 'system') as ErrorKind, e.message ?? `status ${res.statusCode}`));
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (err) => reject(new ManagerUnreachableError(addr, err)));
    req.end(text);
  });
}

export function splitHostPort(addr: string): { host: string; port: number } {
  const at = addr.lastIndexOf(':');
  const host = addr.slice(0, at).replace(/^\[|\]$/g, '');
  return { host, port: Number(addr.slice(at + 1)) };
}
