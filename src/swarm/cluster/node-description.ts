// A joining node's description of itself, as its join request carries it: taken field by field,
// what is not of its type dropped, so that nothing a node sends lands in the store but a
// description.
import type { NodeDescription } from './records.js';

export function decodeNodeDescription(v: unknown): NodeDescription {
  const d = obj(v);
  const platform = obj(d.platform);
  const resources = obj(d.resources);
  const engine = obj(d.engine);
  const plugins = Array.isArray(engine.plugins) ? engine.plugins.map(obj).filter((p) => typeof p.type === 'string' && typeof p.name === 'string') : [];
  return {
    hostname: str(d.hostname),
    platform: { architecture: str(platform.architecture), os: str(platform.os) },
    resources: { nanoCpus: num(resources.nanoCpus), memoryBytes: num(resources.memoryBytes) },
    engine: { engineVersion: str(engine.engineVersion), labels: strings(engine.labels), plugins: plugins.map((p) => ({ type: p.type as string, name: p.name as string })) },
  };
}

function obj(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0;
}

function strings(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, value] of Object.entries(obj(v))) if (typeof value === 'string') out[k] = value;
  return out;
}
