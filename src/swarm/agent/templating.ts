// Secrets' and configs' templates (Driver `golang`), as dockerd expands them
// (daemon/cluster/executor/container template context, swarmkit template/context.go): the
// placeholders Docker documents, {{.Service.ID}}, {{.Service.Name}}, {{.Service.Labels}},
// {{.Node.ID}}, {{.Node.Hostname}}, {{.Node.Platform.OS}}, {{.Node.Platform.Architecture}},
// {{.Task.ID}}, {{.Task.Name}}, {{.Task.Slot}}, and the functions {{env "X"}} (the task's
// environment), {{secret "target"}} and {{config "target"}} (another of the task's files). Go's
// template language beyond these is not read: such a placeholder is an error, as Go's would be.
import os from 'node:os';
import { taskName, type TaskRecord } from '../services/service-records.js';
import type { AssignedObject } from '../transport/cluster-protocol.js';

export interface TemplateContext {
  task: TaskRecord;
  nodeId: string;
  hostname: string;
  secrets: readonly AssignedObject[];
  configs: readonly AssignedObject[];
}

const PLACEHOLDER = /\{\{-?\s*(.*?)\s*-?\}\}/g;

export function expandTemplate(text: string, ctx: TemplateContext): string {
  return text.replace(PLACEHOLDER, (_all, inner: string) => valueOf(inner, ctx));
}

function valueOf(expr: string, ctx: TemplateContext): string {
  const t = ctx.task;
  const fields: Record<string, string> = {
    '.Service.ID': t.serviceId,
    '.Service.Name': t.serviceAnnotations.name,
    '.Service.Labels': `map[${Object.entries(t.serviceAnnotations.labels).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}:${v}`).join(' ')}]`,
    '.Node.ID': ctx.nodeId,
    '.Node.Hostname': ctx.hostname,
    '.Node.Platform.OS': 'linux',
    '.Node.Platform.Architecture': os.arch() === 'x64' ? 'x86_64' : os.arch(),
    '.Task.ID': t.id,
    '.Task.Name': taskName(t),
    '.Task.Slot': String(t.slot === 0 ? t.nodeId : t.slot),
  };
  if (Object.hasOwn(fields, expr)) return fields[expr]!;
  const call = /^(env|secret|config)\s+"([^"]*)"$/.exec(expr);
  if (call === null) throw new Error(`template: unsupported placeholder {{${expr}}}`);
  const [, fn, arg] = call as unknown as [string, string, string];
  if (fn === 'env') {
    const entry = (t.spec.ContainerSpec?.Env ?? []).find((e) => e.startsWith(`${arg}=`));
    return entry === undefined ? '' : entry.slice(arg.length + 1);
  }
  const refs = fn === 'secret' ? (t.spec.ContainerSpec?.Secrets ?? []).map((r) => ({ id: r.SecretID, target: r.File?.Name })) : (t.spec.ContainerSpec?.Configs ?? []).map((r) => ({ id: r.ConfigID, target: r.File?.Name }));
  const ref = refs.find((r) => r.target === arg);
  const o = ref === undefined ? undefined : (fn === 'secret' ? ctx.secrets : ctx.configs).find((x) => x.id === ref.id);
  if (o === undefined) throw new Error(`template: ${fn} ${arg} not found`);
  return Buffer.from(o.data, 'base64').toString('utf8');
}
