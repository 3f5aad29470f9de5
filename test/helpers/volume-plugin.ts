// A volume plugin written in the test: a few lines of Node serving Docker's volume plugin protocol
// v1 on a unix socket, each volume a directory under its own root. It counts its calls, remembers
// the mount IDs, and can be told to fail a method with an Err of the test's choosing.
import { mkdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';

export interface VolumePlugin {
  socket: string;
  /** calls by method name (VolumeDriver.Mount, ...) */
  calls: Map<string, number>;
  /** the bodies Mount and Unmount got, in order */
  mounts: Array<{ method: 'Mount' | 'Unmount'; Name: string; ID: string }>;
  /** methods that answer {"Err": ...} from now on */
  failing: Map<string, string>;
  /** the Opts each Create got, by volume name */
  createOpts: Map<string, unknown>;
  close(): Promise<void>;
}

/** Serves the protocol at <dir>/<name>.sock, volumes under <root>. */
export async function startVolumePlugin(opts: { dir: string; name: string; root: string; scope?: 'local' | 'global' }): Promise<VolumePlugin> {
  mkdirSync(opts.dir, { recursive: true });
  const socket = path.join(opts.dir, `${opts.name}.sock`);
  rmSync(socket, { force: true });
  const volumes = new Set<string>();
  const plugin: VolumePlugin = { socket, calls: new Map(), mounts: [], failing: new Map(), createOpts: new Map(), close: () => close(server) };
  const answer = (method: string, body: Record<string, unknown>): unknown => {
    const name = String(body.Name ?? '');
    const where = path.join(opts.root, name);
    switch (method) {
      case 'Plugin.Activate':
        return { Implements: ['VolumeDriver'] };
      case 'VolumeDriver.Capabilities':
        return { Capabilities: { Scope: opts.scope ?? 'local' } };
      case 'VolumeDriver.Create':
        mkdirSync(where, { recursive: true });
        volumes.add(name);
        plugin.createOpts.set(name, body.Opts);
        return { Err: '' };
      case 'VolumeDriver.Remove':
        rmSync(where, { recursive: true, force: true });
        volumes.delete(name);
        return { Err: '' };
      case 'VolumeDriver.Mount':
      case 'VolumeDriver.Unmount':
        plugin.mounts.push({ method: method === 'VolumeDriver.Mount' ? 'Mount' : 'Unmount', Name: name, ID: String(body.ID) });
        return method === 'VolumeDriver.Mount' ? { Mountpoint: where, Err: '' } : { Err: '' };
      case 'VolumeDriver.Path':
        return { Mountpoint: where, Err: '' };
      case 'VolumeDriver.Get':
        return volumes.has(name) ? { Volume: { Name: name, Mountpoint: where, Status: { from: 'testdriver' } }, Err: '' } : { Err: `no such volume ${name}` };
      case 'VolumeDriver.List':
        return { Volumes: [...volumes].map((v) => ({ Name: v, Mountpoint: path.join(opts.root, v) })), Err: '' };
      default:
        return undefined;
    }
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const method = (req.url ?? '').slice(1);
      plugin.calls.set(method, (plugin.calls.get(method) ?? 0) + 1);
      const text = Buffer.concat(chunks).toString();
      const body = (text.trim() === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
      const err = plugin.failing.get(method);
      const reply = err !== undefined ? { Err: err } : answer(method, body);
      if (reply === undefined) res.writeHead(404).end('404 page not found\n');
      else res.writeHead(200, { 'Content-Type': 'application/vnd.docker.plugins.v1+json' }).end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return plugin;
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
