// EXPOSE (dispatchExpose): the ports (ranges expanded, tcp by default) added to the config; the
// comment lists the words as the parser sorted them.
import { invalidParameter } from '../../../errors.js';
import type { ExposeCommand } from '../../dockerfile/instructions.js';
import type { DispatchState } from '../dispatch-state.js';
import type { StepRunner } from '../step-runner.js';

export async function dispatchExpose(b: StepRunner, state: DispatchState, c: ExposeCommand): Promise<void> {
  const ports = c.ports.flatMap(parsePortSpec);
  const exposed = { ...(state.runConfig.ExposedPorts ?? {}) };
  for (const port of ports) exposed[port] = {};
  state.runConfig.ExposedPorts = exposed;
  await b.commit(state, `EXPOSE ${c.ports.join(' ')}`);
}

/** nat.ParsePortSpec's container side: "80", "80/udp", "8000-8002/tcp". */
function parsePortSpec(spec: string): string[] {
  const slash = spec.lastIndexOf('/');
  const proto = slash >= 0 ? spec.slice(slash + 1).toLowerCase() : 'tcp';
  const range = slash >= 0 ? spec.slice(0, slash) : spec;
  if (!['tcp', 'udp', 'sctp'].includes(proto)) throw invalidParameter(`Invalid proto: ${proto}`);
  const m = /^(\d+)(?:-(\d+))?$/.exec(range);
  const start = m === null ? NaN : Number(m[1]);
  const end = m?.[2] === undefined ? start : Number(m[2]);
  if (!(start <= 65535 && end <= 65535 && start <= end)) throw invalidParameter(`Invalid containerPort: ${range}`);
  const out: string[] = [];
  for (let p = start; p <= end; p++) out.push(`${p}/${proto}`);
  return out;
}
