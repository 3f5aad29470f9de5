// Calls a manager makes to a node's port, a worker's as well as a manager's: a task's log. The
// manager pins the swarm's root CA, shows its manager's certificate, and checks that the other end
// holds the certificate of the node it means (the node ID is among the certificate's names). The
// failures read as swarmkit's log broker words them: a node that can't be reached "is not
// available", one whose stream breaks "disconnected unexpectedly".
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { TaskLogEntry, TaskLogRead } from '../agent/task-runtime.js';
import { splitHostPort, type ClientCredentials } from './cluster-client.js';
import { CLUSTER_PATHS, type TaskLogLine, type TaskLogsRequest } from './cluster-protocol.js';

/** How long the node may take to answer; the stream itself may then be quiet for as long as it likes. */
const ANSWER_TIMEOUT_MS = 10_000;

/** `taskId`'s log entries from the node `nodeId` at `addr` (host:port); ends quietly once `signal` fires. */
export async function* streamTaskLogs(addr: string, nodeId: string, taskId: string, read: TaskLogRead, creds: ClientCredentials, signal: AbortSignal): AsyncGenerator<TaskLogEntry> {
  const body = JSON.stringify({ taskId, stdout: read.stdout, stderr: read.stderr, follow: read.follow, ...(read.sinceNs !== undefined ? { sinceNs: read.sinceNs.toString() } : {}), ...(read.tail !== undefined ? { tail: read.tail } : {}) } satisfies TaskLogsRequest);
  let res: IncomingMessage;
  try {
    res = await answer(addr, nodeId, body, creds, signal);
  } catch (err) {
    if (signal.aborted) return;
    throw new Error(`node ${nodeId} is not available`, { cause: err });
  }
  let rest = '';
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop()!;
      for (const line of lines) {
        const l = JSON.parse(line) as TaskLogLine;
        yield { stream: l.stream, timeNs: BigInt(l.timeNs), data: Buffer.from(l.data, 'base64') };
      }
    }
  } catch (err) {
    if (signal.aborted) return;
    throw new Error(`node ${nodeId} disconnected unexpectedly`, { cause: err });
  }
}

/** The node's answer once its head is in: a stream of lines (any other status is the node's refusal). */
function answer(addr: string, nodeId: string, body: string, creds: ClientCredentials, signal: AbortSignal): Promise<IncomingMessage> {
  const { host, port } = splitHostPort(addr);
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host, port, method: 'POST', path: CLUSTER_PATHS.taskLogs, agent: false, timeout: ANSWER_TIMEOUT_MS, signal, ca: creds.rootCaPem, cert: creds.certPem, key: creds.keyPem, servername: nodeId, rejectUnauthorized: true, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        req.setTimeout(0);
        if (res.statusCode === 200) return resolve(res);
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => reject(new Error(`status ${res.statusCode}: ${Buffer.concat(chunks).toString('utf8')}`)));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });
}
