// A node's cluster port: HTTPS with the node's certificate, asking every client for its
// certificate. A manager's serves the swarm's calls and the node's own; a worker's only the node's
// own (its tasks' logs, for managers). Only the root CA and a join answer without a certificate (a
// joining node has none yet; its token vouches for it). Everything else needs a certificate from
// this swarm's CA, whose subject names the caller (certificate identity, not what it says), and
// manager calls a manager's certificate. A stream (a task's log) answers one JSON value a line; a
// failure once it has begun cuts the connection, so that the caller sees it did not end.
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { EngineError } from '../../errors.js';
import type { TaskLogs } from '../agent/task-logs.js';
import { certificateIdentity, type NodeIdentity } from '../ca/swarm-ca.js';
import { type AddMemberRequest, type AddMemberResponse, type Assignments, type AssignmentsRequest, CLUSTER_PATHS, type ErrorBody, type HeartbeatRequest, type HeartbeatResponse, type JoinRequest, type JoinResponse, type NetworkAttachRequest, type NetworkAttachResponse, type NetworkDetachRequest, type RenewRequest, type RenewResponse, type TableEntriesRequest, type TaskLogLine, type TaskLogsRequest, type TaskStatusRequest } from './cluster-protocol.js';

const MAX_BODY_BYTES = 256 * 1024;

/** What every node serves managers. */
export interface NodeHandlers {
  taskLogs: TaskLogs;
}

/** What a manager serves the swarm's nodes. */
export interface ClusterHandlers {
  rootCaPem(): string;
  join(req: JoinRequest, remoteHost: string): Promise<JoinResponse>;
  heartbeat(node: NodeIdentity, req: HeartbeatRequest): Promise<HeartbeatResponse>;
  renew(node: NodeIdentity, req: RenewRequest): Promise<RenewResponse>;
  leave(node: NodeIdentity): Promise<void>;
  /** managers only */
  addMember(node: NodeIdentity, req: AddMemberRequest): Promise<AddMemberResponse>;
  /** `signal` fires when the node goes away */
  assignments(nodeId: string, req: AssignmentsRequest, signal: AbortSignal): Promise<Assignments>;
  taskStatus(nodeId: string, req: TaskStatusRequest): Promise<void>;
  tableEntries(nodeId: string, req: TableEntriesRequest): Promise<void>;
  attachNetwork(nodeId: string, req: NetworkAttachRequest): Promise<NetworkAttachResponse>;
  detachNetwork(nodeId: string, req: NetworkDetachRequest): Promise<void>;
}

export interface ServerCredentials {
  certPem: string;
  keyPem: string;
  rootCaPem: string;
  clusterId: string;
}

type Access = 'anyone' | 'node' | 'manager';

type Route = { access: Access; run: (node: NodeIdentity | undefined, body: unknown, req: IncomingMessage) => Promise<unknown> } | { access: Access; stream: (body: unknown, signal: AbortSignal) => AsyncIterable<unknown> };

export class ClusterServer {
  private constructor(
    private readonly server: https.Server,
    private clusterId: string,
  ) {}

  /** A manager's port serves `manager`'s calls besides the node's own. */
  static async listen(host: string, port: number, creds: ServerCredentials, handlers: { node: NodeHandlers; manager?: ClusterHandlers }, log: Logger): Promise<ClusterServer> {
    const server = https.createServer({ cert: creds.certPem, key: creds.keyPem, ca: creds.rootCaPem, requestCert: true, rejectUnauthorized: false, minVersion: 'TLSv1.2' });
    const self = new ClusterServer(server, creds.clusterId);
    const m = handlers.manager;
    const routes: Record<string, Route> = {
      [`POST ${CLUSTER_PATHS.taskLogs}`]: { access: 'manager', stream: (body, signal) => taskLogLines(handlers.node.taskLogs, body, signal) },
      ...(m === undefined
        ? {}
        : {
            [`GET ${CLUSTER_PATHS.rootCa}`]: { access: 'anyone', run: async () => ({ rootCaPem: m.rootCaPem() }) },
            [`POST ${CLUSTER_PATHS.join}`]: { access: 'anyone', run: (_n, body, req) => m.join(body as JoinRequest, req.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '') },
            [`POST ${CLUSTER_PATHS.heartbeat}`]: { access: 'node', run: (n, body) => m.heartbeat(n!, body as HeartbeatRequest) },
            [`POST ${CLUSTER_PATHS.renew}`]: { access: 'node', run: (n, body) => m.renew(n!, body as RenewRequest) },
            [`POST ${CLUSTER_PATHS.leave}`]: { access: 'node', run: (n) => m.leave(n!) },
            [`POST ${CLUSTER_PATHS.addMember}`]: { access: 'manager', run: (n, body) => m.addMember(n!, body as AddMemberRequest) },
            [`POST ${CLUSTER_PATHS.assignments}`]: { access: 'node', run: (n, body, req) => m.assignments(n!.nodeId, body as AssignmentsRequest, goneSignal(req)) },
            [`POST ${CLUSTER_PATHS.taskStatus}`]: { access: 'node', run: (n, body) => m.taskStatus(n!.nodeId, body as TaskStatusRequest) },
            [`POST ${CLUSTER_PATHS.tableEntries}`]: { access: 'node', run: (n, body) => m.tableEntries(n!.nodeId, body as TableEntriesRequest) },
            [`POST ${CLUSTER_PATHS.attachNetwork}`]: { access: 'node', run: (n, body) => m.attachNetwork(n!.nodeId, body as NetworkAttachRequest) },
            [`POST ${CLUSTER_PATHS.detachNetwork}`]: { access: 'node', run: (n, body) => m.detachNetwork(n!.nodeId, body as NetworkDetachRequest) },
          } satisfies Record<string, Route>),
    };
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      void (async () => {
        try {
          const route = routes[`${req.method} ${req.url}`];
          if (route === undefined) throw new EngineError('notFound', `no such call: ${req.method} ${req.url}`);
          const node = self.caller(req, route.access);
          const body = await readJson(req);
          if ('stream' in route) await sendLines(res, route.stream(body, goneSignal(req)));
          else reply(res, 200, (await route.run(node, body, req)) ?? {});
        } catch (err) {
          if (!(err instanceof EngineError)) log.error({ err }, 'cluster call failed');
          if (res.headersSent) res.destroy();
          else reply(res, 500, { message: (err as Error).message, kind: err instanceof EngineError ? err.kind : 'system' } satisfies ErrorBody);
        }
      })();
    });
    // a client that goes away mid-handshake is no event
    server.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return self;
  }

  /** New credentials for new connections: a renewed certificate, or another role's. */
  updateCredentials(creds: ServerCredentials): void {
    this.server.setSecureContext({ cert: creds.certPem, key: creds.keyPem, ca: creds.rootCaPem });
    this.clusterId = creds.clusterId;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  /** Who calls, from its verified certificate; refused when the route asks for more. */
  private caller(req: IncomingMessage, access: Access): NodeIdentity | undefined {
    if (access === 'anyone') return undefined;
    const socket = req.socket as TLSSocket;
    const identity = socket.authorized ? certificateIdentity(socket.getPeerCertificate()) : undefined;
    if (identity === undefined || identity.clusterId !== this.clusterId) throw new EngineError('unauthorized', 'a certificate of this swarm is required');
    if (access === 'manager' && identity.role !== 'manager') throw new EngineError('forbidden', `Permission denied: ${identity.nodeId} is not a manager`);
    return identity;
  }
}

/** A task's log as lines, its request checked first (a failure then is still an answer). */
function taskLogLines(taskLogs: TaskLogs, body: unknown, signal: AbortSignal): AsyncIterable<TaskLogLine> {
  const req = (typeof body === 'object' && body !== null ? body : {}) as Partial<TaskLogsRequest>;
  if (typeof req.taskId !== 'string' || (req.sinceNs !== undefined && !/^-?\d+$/.test(req.sinceNs))) throw new EngineError('invalidParameter', 'a task ID is required, and since in nanoseconds');
  const read = { stdout: req.stdout === true, stderr: req.stderr === true, follow: req.follow === true, sinceNs: req.sinceNs === undefined ? undefined : BigInt(req.sinceNs), tail: typeof req.tail === 'number' ? req.tail : undefined };
  const entries = taskLogs(req.taskId, read, signal);
  return (async function* () {
    for await (const e of entries) yield { stream: e.stream, timeNs: e.timeNs.toString(), data: e.data.toString('base64') };
  })();
}

/** One JSON value a line, each written when the connection can take it. */
async function sendLines(res: ServerResponse, items: AsyncIterable<unknown>): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  res.flushHeaders();
  for await (const item of items) {
    if (res.destroyed) return;
    if (!res.write(`${JSON.stringify(item)}\n`)) await drainedOrClosed(res);
  }
  res.end();
}

function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}

/** Fires when the caller's connection closes before the answer. */
function goneSignal(req: IncomingMessage): AbortSignal {
  const gone = new AbortController();
  req.socket.once('close', () => gone.abort());
  return gone.signal;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new EngineError('invalidParameter', 'request too large');
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new EngineError('invalidParameter', 'malformed request');
  }
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}
