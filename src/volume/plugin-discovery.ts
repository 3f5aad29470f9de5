// Where a legacy plugin is, found as dockerd finds one (v20.10 pkg/plugins/discovery.go): a socket
// <name>.sock (or <name>/<name>.sock) in the sockets directory, else a <name>.spec file (a URL) or a
// <name>.json file ({Name, Addr}) in a specs directory. berth looks in Docker's own directories, so
// plugins written for Docker are found as they are, unless told others (tests, several daemons).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { invalidParameter } from '../errors.js';

export interface PluginDirs {
  sockets: string;
  specs: readonly string[];
}

export const DOCKER_PLUGIN_DIRS: PluginDirs = { sockets: '/run/docker/plugins', specs: ['/etc/docker/plugins', '/usr/lib/docker/plugins'] };

/** How to reach a plugin: a unix socket's path, or a tcp host and port. */
export type PluginAddress = { socketPath: string } | { host: string; port: number };

/** The plugin's address, undefined when no socket or spec of that name exists. */
export function findPlugin(name: string, dirs: PluginDirs): PluginAddress | undefined {
  // a name is a file name here: nothing that could climb out of the directories
  if (name === '' || name.includes('/') || name === '.' || name === '..') return undefined;
  for (const socket of [path.join(dirs.sockets, `${name}.sock`), path.join(dirs.sockets, name, `${name}.sock`)]) {
    if (isSocket(socket)) return { socketPath: socket };
  }
  for (const dir of dirs.specs) {
    for (const base of [dir, path.join(dir, name)]) {
      for (const ext of ['.spec', '.json']) {
        const file = path.join(base, name + ext);
        if (existsSync(file)) return parseSpec(file, ext === '.json');
      }
    }
  }
  return undefined;
}

/** Every plugin name the directories show (sockets, spec files, and folders holding one of the same name), as dockerd's Scan. */
export function pluginNames(dirs: PluginDirs): string[] {
  const names = new Set<string>();
  const scan = (dir: string, exts: readonly string[]) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const ext = exts.find((x) => e.name.endsWith(x));
      if (e.isDirectory()) {
        if (exts.some((x) => existsSync(path.join(dir, e.name, e.name + x)))) names.add(e.name);
      } else if (ext !== undefined) names.add(e.name.slice(0, -ext.length));
    }
  };
  scan(dirs.sockets, ['.sock']);
  for (const dir of dirs.specs) scan(dir, ['.spec', '.json']);
  return [...names];
}

function parseSpec(file: string, json: boolean): PluginAddress {
  const text = readFileSync(file, 'utf8');
  const address = json ? String((JSON.parse(text) as { Addr?: unknown }).Addr ?? '') : text.trim();
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw invalidParameter(`Unknown protocol in plugin spec ${file}: ${JSON.stringify(address)}`);
  }
  if (url.protocol === 'unix:') return { socketPath: url.pathname };
  if (url.protocol === 'tcp:' || url.protocol === 'http:') return { host: url.hostname, port: Number(url.port) };
  throw invalidParameter(`Unknown protocol ${url.protocol.slice(0, -1)} in plugin spec ${file}`);
}

function isSocket(p: string): boolean {
  try {
    return statSync(p).isSocket();
  } catch {
    return false;
  }
}
