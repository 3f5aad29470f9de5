// A legacy plugin's HTTP API (v20.10 pkg/plugins/client.go): POST /<Method> with a JSON body and
// the plugin protocol's Accept header, JSON back. A 200 whose Err is set fails with the Err as it
// is; any other status with "<Method>: " before the Err (or the body), as dockerd words them.
import { request } from 'node:http';
import { EngineError } from '../errors.js';
import type { PluginAddress } from './plugin-discovery.js';

const ACCEPT = 'application/vnd.docker.plugins.v1.2+json';

export class PluginClient {
  constructor(
    readonly name: string,
    private readonly address: PluginAddress,
  ) {}

  /** The method's answer; the plugin's error as a PluginError; unreachable → an EngineError naming the call. body undefined sends none (Activate). */
  async call<T extends object>(method: string, body: unknown, timeoutMs: number): Promise<T> {
    const { status, text } = await this.post(`/${method}`, body === undefined ? '' : `${JSON.stringify(body)}\n`, timeoutMs);
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      if (status === 200) throw new PluginError(`${method}: the plugin's answer is not JSON: ${text.slice(0, 200)}`);
    }
    const err = (answer as { Err?: unknown } | null)?.Err;
    const hasErr = typeof err === 'string' && err !== '';
    if (status !== 200) throw new PluginError(`${method}: ${hasErr ? err : text}`);
    if (hasErr) throw new PluginError(err);
    return (answer ?? {}) as T;
  }

  private post(urlPath: string, body: string, timeoutMs: number): Promise<{ status: number; text: string }> {
    const target = 'socketPath' in this.address ? { socketPath: this.address.socketPath, host: 'plugin.moby.localhost' } : { host: this.address.host, port: this.address.port };
    return new Promise((resolve, reject) => {
      const req = request({ ...target, method: 'POST', path: urlPath, headers: { Accept: ACCEPT, 'Content-Length': Buffer.byteLength(body) }, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`no answer in ${timeoutMs / 1000} s`)));
      req.on('error', (err) => reject(new EngineError('system', `Post "http://plugin.moby.localhost${urlPath}": ${err.message}`, { cause: err })));
      req.end(body);
    });
  }
}

/** What the plugin itself answered as its error (it was reached). */
export class PluginError extends EngineError {
  constructor(message: string) {
    super('system', message);
    this.name = 'PluginError';
  }
}
