// The `changes` of import and commit: Dockerfile instructions applied to a container config,
// limited to those dockerd accepts there.
import { invalidParameter } from '../errors.js';

export type ContainerConfigJson = Record<string, unknown>;

const ALLOWED = new Set(['cmd', 'entrypoint', 'env', 'expose', 'label', 'onbuild', 'user', 'volume', 'workdir']);

/** Checks every change before anything is written; throws with dockerd's message for one it refuses. */
export function parseChanges(changes: string[]): Array<{ instruction: string; args: string }> {
  return changes
    .map((c) => c.trim())
    .filter((c) => c !== '')
    .map((c) => {
      const m = /^(\S+)\s*(.*)$/s.exec(c) as RegExpExecArray;
      const instruction = m[1].toLowerCase();
      if (!ALLOWED.has(instruction)) throw invalidParameter(`${instruction} is not a valid change command`);
      return { instruction, args: m[2].trim() };
    });
}

export function applyChanges(base: ContainerConfigJson, changes: Array<{ instruction: string; args: string }>): ContainerConfigJson {
  const config: ContainerConfigJson = { ...base };
  for (const { instruction, args } of changes) {
    switch (instruction) {
      case 'cmd':
        config.Cmd = commandForm(args);
        break;
      case 'entrypoint':
        config.Entrypoint = commandForm(args);
        break;
      case 'env':
        config.Env = mergeEnv((config.Env as string[] | undefined) ?? [], keyValues(args, 'ENV'));
        break;
      case 'label':
        config.Labels = { ...((config.Labels as Record<string, string> | undefined) ?? {}), ...Object.fromEntries(keyValues(args, 'LABEL')) };
        break;
      case 'expose':
        config.ExposedPorts = {
          ...((config.ExposedPorts as Record<string, object> | undefined) ?? {}),
          ...Object.fromEntries(words(args).map((p) => [p.includes('/') ? p.toLowerCase() : `${p}/tcp`, {}])),
        };
        break;
      case 'onbuild':
        config.OnBuild = [...((config.OnBuild as string[] | undefined) ?? []), args];
        break;
      case 'user':
        config.User = args;
        break;
      case 'volume':
        config.Volumes = { ...((config.Volumes as Record<string, object> | undefined) ?? {}), ...Object.fromEntries(listForm(args).map((v) => [v, {}])) };
        break;
      case 'workdir':
        config.WorkingDir = args;
        break;
    }
  }
  return config;
}

/** `["a","b"]` as given; anything else is run by the shell, as a Dockerfile's shell form. */
function commandForm(args: string): string[] {
  const json = jsonList(args);
  return json ?? ['/bin/sh', '-c', args];
}

function listForm(args: string): string[] {
  return jsonList(args) ?? words(args);
}

function jsonList(args: string): string[] | undefined {
  if (!args.startsWith('[')) return undefined;
  try {
    const v: unknown = JSON.parse(args);
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v;
  } catch {
    // not JSON: the shell form
  }
  return undefined;
}

function words(args: string): string[] {
  return args.split(/\s+/).filter(Boolean);
}

/** `K=V K2="V 2"`, or the legacy `K V` form with a single pair. */
function keyValues(args: string, what: string): Array<[string, string]> {
  if (!/^[^\s=]+=/.test(args)) {
    const m = /^(\S+)\s+(.*)$/s.exec(args);
    if (!m) throw invalidParameter(`${what} requires at least one argument`);
    return [[m[1], m[2]]];
  }
  const out: Array<[string, string]> = [];
  const re = /([^\s=]+)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)/g;
  for (let m = re.exec(args); m !== null; m = re.exec(args)) {
    const raw = m[2];
    const value = raw.startsWith('"') ? (JSON.parse(raw) as string) : raw.startsWith("'") ? raw.slice(1, -1) : raw;
    out.push([m[1], value]);
  }
  return out;
}

function mergeEnv(env: string[], pairs: Array<[string, string]>): string[] {
  const out = [...env];
  for (const [k, v] of pairs) {
    const i = out.findIndex((e) => e.split('=', 1)[0] === k);
    if (i >= 0) out[i] = `${k}=${v}`;
    else out.push(`${k}=${v}`);
  }
  return out;
}
