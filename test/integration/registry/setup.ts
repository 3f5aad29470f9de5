// What the registry tests share: a berthd with busybox in its own network namespace and the
// registries started in that namespace, torn down together (the registries first, also when a
// test failed), and small readers of berthd's answers.
import type { Berthd, StartOptions } from '../../helpers/berthd.js';
import { startWithBusybox, sweep } from '../../helpers/containers.js';
import { startRegistry, type Registry, type RegistryOptions } from '../../helpers/registry.js';

export interface Stage {
  d: Berthd;
  registries: Registry[];
  registry(opts?: Omit<RegistryOptions, 'netns'>): Promise<Registry>;
}

export async function stage(opts: StartOptions = {}): Promise<Stage> {
  const d = await startWithBusybox(opts);
  const registries: Registry[] = [];
  return {
    d,
    registries,
    registry: async (o = {}) => {
      const r = await startRegistry({ netns: d.netns!, ...o });
      registries.push(r);
      return r;
    },
  };
}

/** Stops the registries, removes the containers, stops berthd (`expectErrors` for tests that make pulls fail) and sweeps. */
export async function unstage(s: Stage | undefined, opts: { expectErrors?: boolean } = {}): Promise<void> {
  if (s === undefined) return;
  for (const r of s.registries) await r.close();
  // berthd gone before its teardown, other than by a test's own clean stop, crashed: say so with what it wrote
  const crashed = (s.d.proc.exitCode !== null && s.d.proc.exitCode !== 0) || s.d.proc.signalCode !== null;
  try {
    const r = await s.d.request('GET', '/containers/json?all=1');
    if (r.status === 200) {
      for (const c of JSON.parse(r.body) as Array<{ Id: string }>) await s.d.request('DELETE', `/containers/${c.Id}?force=1`, { timeoutMs: 30000 });
    }
  } catch {
    // the daemon is gone: the sweep does it
  }
  try {
    await s.d.stop('SIGTERM', opts);
  } finally {
    sweep(s.d.dir);
  }
  if (crashed) throw new Error(`berthd exited during the tests (${s.d.proc.exitCode ?? s.d.proc.signalCode}):\n${s.d.log.split('\n').slice(-40).join('\n')}`);
}

export interface ImageJson {
  Id: string;
  RepoTags: string[];
  RepoDigests: string[];
  Architecture: string;
  Variant?: string;
  Os: string;
  RootFS: { Layers: string[] };
  Config: { Labels: Record<string, string> | null };
}

/** GET /images/{ref}/json: the image, or undefined on 404. */
export async function inspectImage(d: Berthd, ref: string): Promise<ImageJson | undefined> {
  const r = await d.request('GET', `/images/${ref}/json`);
  if (r.status === 404) return undefined;
  if (r.status !== 200) throw new Error(`GET /images/${ref}/json: ${r.status} ${r.body}`);
  return r.json() as ImageJson;
}

/** Every image ID berthd has (intermediate ones too). */
export async function imageIds(d: Berthd): Promise<string[]> {
  const r = await d.request('GET', '/images/json?all=1');
  return (r.json() as Array<{ Id: string }>).map((i) => i.Id).sort();
}

export interface EventJson {
  Type: string;
  Action: string;
  Actor: { ID: string; Attributes: Record<string, string> };
  time: number;
}

/** The events berthd sent between since and now (seconds), of `type`. */
export async function eventsSince(d: Berthd, since: number, type = 'image'): Promise<{ raw: string; events: EventJson[] }> {
  const until = Math.ceil(Date.now() / 1000) + 1;
  const filters = encodeURIComponent(JSON.stringify({ type: [type] }));
  const r = await d.request('GET', `/events?since=${since}&until=${until}&filters=${filters}`, { timeoutMs: 15000 });
  const events = r.body
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as EventJson);
  return { raw: r.body, events };
}

/** The digest `docker push` printed: `TAG: digest: sha256:… size: N`. */
export function pushedDigest(stdout: string): string {
  const m = /: digest: (sha256:[0-9a-f]{64}) size: \d+/.exec(stdout);
  if (!m) throw new Error(`no digest in the push's output:\n${stdout}`);
  return m[1];
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);
