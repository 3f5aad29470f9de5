// One GET over a unix socket with node:http, on a fresh connection each time so that polling a
// daemon that is still starting measures its start-up, not a pooled socket.
import http from 'node:http';

export function get(socketPath: string, urlPath: string, timeoutMs = 1000): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath, path: urlPath, agent: false, timeout: timeoutMs });
    req.on('timeout', () => req.destroy(new Error(`GET ${urlPath} timed out`)));
    req.on('error', reject);
    req.on('response', (res) => {
      res.resume();
      res.on('error', reject);
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.end();
  });
}

/** Whether the daemon behind the socket answers /_ping with 200. */
export async function ping(socketPath: string): Promise<boolean> {
  try {
    return (await get(socketPath, '/_ping')) === 200;
  } catch {
    return false;
  }
}
