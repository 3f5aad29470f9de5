// What every answer must be: no 500 unless dockerd gives one for the same request too (the
// allow-list, each entry with its reason), and every error a JSON object with a string `message`.
import type { FuzzResponse } from './client.js';
import type { FuzzRequest } from './request-arbitrary.js';

export interface Allowed500 {
  operationId: string;
  message: RegExp;
  /** what dockerd 20.10 answers to the same request */
  reason: string;
}

/** 500s dockerd gives as well, checked against Docker Engine 20.10 (see test/fuzz/README.md). */
export const ALLOWED_500: Allowed500[] = [
  {
    operationId: 'DistributionInspect',
    message: /^Get "https:\/\/.*": dial tcp|^Get "https?:\/\/.*": .*(refused|unreachable|no such host)/,
    reason: 'a registry that cannot be reached: dockerd 20.10 answers 500 with the dial error (checked: GET /distribution/busybox/json with no route out)',
  },
  {
    operationId: 'SystemAuth',
    message: /^Get "https?:\/\/.*": /,
    reason: 'a registry that cannot be reached: dockerd 20.10 answers 500 with the dial error (checked: POST /auth {"serveraddress":"fuzz-v"})',
  },
  {
    operationId: 'ImageCreate',
    message: /^Get "https?:\/\/.*": |^fetch failed$/,
    reason: 'a registry or a fromSrc URL that cannot be reached: dockerd 20.10 answers 500 with the dial error (checked: ?fromImage=busybox, ?fromSrc=http://127.0.0.1:9/x.tar; berth words the second "fetch failed")',
  },
  {
    operationId: 'NetworkCreate',
    message: /^invalid name: .*$|^This node is not a swarm manager\./,
    reason: 'an empty name, and a swarm scope: dockerd 20.10 answers 500 (checked: {"Name":""}, {"Name":"x","Scope":"none"})',
  },
  {
    operationId: 'NetworkList',
    message: /^invalid filter: '.*'='.*'$/,
    reason: 'a type filter that is neither custom nor builtin: dockerd 20.10 answers 500 (checked: ?filters={"type":["busybox"]})',
  },
  {
    operationId: 'ImageSearch',
    message: /^Get "https?:\/\/.*": /,
    reason: 'an index that cannot be reached: dockerd 20.10 answers 500 with the dial error (checked: GET /images/search?term=busybox with no route out)',
  },
  {
    operationId: 'ContainerDelete',
    message: /^(Conflict, cannot remove the default link name of the container|Cannot get parent .* for link name .*)$/,
    reason: 'DELETE ?link=1 of a name that is not a link: dockerd 20.10 rmLink returns a plain fmt.Errorf (daemon/delete.go), a 500',
  },
  {
    operationId: 'ImageBuild',
    message: /^(invalid character .* looking for beginning of value|json: cannot unmarshal .*|unexpected end of JSON input|Cannot locate specified Dockerfile: .*|invalid reference format.*)$/,
    reason: 'cachefrom or outputs that are not JSON, and a context without the Dockerfile: dockerd 20.10 answers 500 (checked: POST /build?cachefrom=busybox, ?outputs=label%3Da, an empty context)',
  },
  {
    operationId: 'ContainerUpdate',
    message: /^json: cannot unmarshal .* into Go (value of type container\.UpdateConfig|struct field UpdateConfig\..*)$|^EOF$/,
    reason: 'a body or a field of the wrong JSON type: dockerd 20.10 answers 500 (checked: POST /containers/x/update with "x", with {"CpuPeriod":"x"})',
  },
  {
    operationId: 'ContainerCreate',
    message: /^json: cannot unmarshal .* into Go (value of type runconfig\.ContainerConfigWrapper|struct field .*)$/,
    reason: 'a body or a field of the wrong JSON type: dockerd 20.10 answers 500 (checked: POST /containers/create with "x", with {"Image":5})',
  },
  ...(['ServiceLogs', 'TaskLogs'] as const).map((operationId) => ({
    operationId,
    message: /^Bad parameters: you must choose at least one stream$/,
    reason: 'neither stdout nor stderr: dockerd 20.10 swarmLogs answers a plain error, a 500, before it asks the cluster (checked: GET /services/x/logs on a node in no swarm)',
  })),
];

export interface Failure {
  /** what went wrong, short: the key failures are grouped by */
  kind: string;
  detail: string;
  request: { operationId: string; method: string; path: string; headers: Record<string, string>; bodyKind: string; body?: string };
}

export function describeRequest(req: FuzzRequest): Failure['request'] {
  const body = req.body === undefined ? undefined : req.body.length > 300 ? `${req.body.subarray(0, 300).toString('latin1')}… (${req.body.length} bytes)` : req.body.toString('latin1');
  return { operationId: req.operationId, method: req.method, path: req.path.length > 300 ? `${req.path.slice(0, 300)}…` : req.path, headers: req.headers, bodyKind: req.bodyKind, body };
}

/** The failures one answer shows (none for a good one). */
export function checkResponse(req: FuzzRequest, res: FuzzResponse): Omit<Failure, 'request'>[] {
  const out: Omit<Failure, 'request'>[] = [];
  // a server may answer (or refuse) before it has read a big body, and close: the client's write fails
  if (res.error !== undefined && (req.body?.length ?? 0) > 16 * 1024 && /EPIPE|ECONNRESET/.test(res.error)) return out;
  // Node's client would not send it (a character it does not allow in a path or header): the harness's, not the daemon's
  if (res.error?.startsWith('not sent: ')) return out;
  if (res.error !== undefined) return [{ kind: `${req.operationId}: connection error`, detail: res.error }];
  if (res.status < 400 || res.cut !== 'no') return out;
  if (req.method === 'HEAD') return out;
  let message: unknown;
  try {
    const parsed = JSON.parse(res.body) as unknown;
    message = parsed !== null && typeof parsed === 'object' ? (parsed as { message?: unknown }).message : undefined;
  } catch {
    message = undefined;
  }
  if (!res.contentType.startsWith('application/json') || typeof message !== 'string') {
    out.push({ kind: `${req.operationId}: ${res.status} not a JSON {"message"}`, detail: `${res.contentType} ${res.body.slice(0, 300)}` });
    return out;
  }
  if (res.status === 500 && !ALLOWED_500.some((a) => a.operationId === req.operationId && a.message.test(message as string))) {
    out.push({ kind: `${req.operationId}: 500 ${(message as string).replace(/[0-9a-f]{12,}/g, '<id>').slice(0, 120)}`, detail: message as string });
  }
  return out;
}
