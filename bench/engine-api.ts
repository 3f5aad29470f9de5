// The container calls the container figures make over an engine's socket, on a keep-alive agent
// as API clients use. An answer that is not what a working engine sends throws with the engine's
// own words, so a failure never becomes a figure.
import http from 'node:http';

const TIMEOUT_MS = 120_000;
const QUOTED_CHARS = 500;

/** The part of ContainerCreate's body the figures send. */
export interface CreateConfig {
  Image: string;
  Cmd: string[];
  ExposedPorts?: Record<string, object>;
  HostConfig?: { NetworkMode?: string; PortBindings?: Record<string, Array<{ HostIp?: string; HostPort: string }>> };
}

/** The part of ContainerInspect's answer the figures read. */
export interface ContainerInspect {
  State: { Pid: number; Running: boolean };
  NetworkSettings: { Networks: Record<string, { IPAddress: string; Gateway: string }> };
}

interface Answer {
  status: number;
  text: string;
  body: Buffer;
}

/** One engine's socket. */
export class EngineApi {
  private readonly agent = new http.Agent({ keepAlive: true });

  constructor(readonly socket: string) {}

  /** Sends the request (a Buffer body as a tar, anything else as JSON); throws unless the status is one of `expected`. */
  async call(method: string, urlPath: string, expected: number[], body?: unknown): Promise<Answer> {
    const answer = await this.send(method, urlPath, body);
    if (!expected.includes(answer.status)) throw new Error(`${method} ${urlPath} on ${this.socket} answered ${answer.status}: ${answer.text.slice(0, QUOTED_CHARS)}`);
    return answer;
  }

  /** POST /containers/create; the new container's ID. */
  async create(config: CreateConfig, name?: string): Promise<string> {
    const query = name === undefined ? '' : `?name=${encodeURIComponent(name)}`;
    const answer = await this.call('POST', `/containers/create${query}`, [201], config);
    return (JSON.parse(answer.text) as { Id: string }).Id;
  }

  async start(id: string): Promise<void> {
    await this.call('POST', `/containers/${id}/start`, [204]);
  }

  /** POST /containers/{id}/wait; the exit code. */
  async wait(id: string): Promise<number> {
    const answer = await this.call('POST', `/containers/${id}/wait`, [200]);
    return (JSON.parse(answer.text) as { StatusCode: number }).StatusCode;
  }

  async remove(id: string, force = false): Promise<void> {
    await this.call('DELETE', `/containers/${id}${force ? '?force=1' : ''}`, [204]);
  }

  async inspect(id: string): Promise<ContainerInspect> {
    const answer = await this.call('GET', `/containers/${id}/json`, [200]);
    return JSON.parse(answer.text) as ContainerInspect;
  }

  /** The container's standard error so far, from its log (a container without a TTY: the stream is multiplexed). */
  async stderr(id: string): Promise<string> {
    const answer = await this.callRaw('GET', `/containers/${id}/logs?stderr=1`, [200]);
    const parts: Buffer[] = [];
    // each frame: the stream (2 for stderr), three zero bytes, the payload's length (big-endian), the payload
    for (let at = 0; at + 8 <= answer.length; ) {
      const size = answer.readUInt32BE(at + 4);
      if (answer[at] === 2) parts.push(answer.subarray(at + 8, at + 8 + size));
      at += 8 + size;
    }
    return Buffer.concat(parts).toString('utf8');
  }

  /** The pid of the container's first process (0 when it is not running). */
  async pid(id: string): Promise<number> {
    return (await this.inspect(id)).State.Pid;
  }

  /** The IDs of the containers whose name starts with `prefix` (all of them for ''). */
  async containersNamed(prefix: string): Promise<string[]> {
    const answer = await this.call('GET', '/containers/json?all=1', [200]);
    const list = JSON.parse(answer.text) as Array<{ Id: string; Names: string[] }>;
    return list.filter((c) => c.Names.some((n) => n.startsWith(`/${prefix}`))).map((c) => c.Id);
  }

  /** Force-removes the given containers, a few at a time. */
  async removeAll(ids: string[], concurrency = 8): Promise<void> {
    await inBatches(ids, concurrency, (id) => this.remove(id, true));
  }

  /** As call(), with the answer's bytes as they came. */
  /** Removes the volumes whose names start with the prefix. */
  async removeVolumesNamed(prefix: string): Promise<void> {
    const { Volumes } = JSON.parse((await this.call('GET', '/volumes', [200])).text) as { Volumes: Array<{ Name: string }> | null };
    const names = (Volumes ?? []).map((v) => v.Name).filter((n) => n.startsWith(prefix));
    await inBatches(names, 8, (name) => this.call('DELETE', `/volumes/${name}`, [204, 404]));
  }

  private async callRaw(method: string, urlPath: string, expected: number[]): Promise<Buffer> {
    const answer = await this.send(method, urlPath, undefined);
    if (!expected.includes(answer.status)) throw new Error(`${method} ${urlPath} on ${this.socket} answered ${answer.status}: ${answer.body.toString('utf8').slice(0, QUOTED_CHARS)}`);
    return answer.body;
  }

  close(): void {
    this.agent.destroy();
  }

  private send(method: string, urlPath: string, body: unknown): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined || Buffer.isBuffer(body) ? body : JSON.stringify(body);
      const contentType = Buffer.isBuffer(body) ? 'application/x-tar' : 'application/json';
      const headers: http.OutgoingHttpHeaders = payload === undefined ? {} : { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(payload) };
      const req = http.request({ socketPath: this.socket, method, path: urlPath, headers, agent: this.agent, timeout: TIMEOUT_MS });
      req.on('timeout', () => req.destroy(new Error(`${method} ${urlPath} on ${this.socket} timed out`)));
      req.on('error', reject);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, text: body.toString('utf8'), body });
        });
      });
      req.end(payload);
    });
  }
}

/** Runs `work` on every item, at most `concurrency` at once; the first failure fails the whole. */
export async function inBatches<T, R>(items: readonly T[], concurrency: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}
