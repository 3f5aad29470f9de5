// The classic builder's cache (moby v20.10 image/cache/cache.go and compare.go): a step is the
// image already made by the same step on the same parent, found among the parent's children by
// their container config (the step's Cmd, Env, Labels, ports, entrypoint, volumes, user); the
// newest wins. Once a step misses, every later step of the stage misses (imageProber's
// cacheBusted). With cache-from, a candidate must also be one of the given images or their parents.
import type { ContainerConfig } from '../../container/config/types.js';
import type { BuildImages } from '../build-ports.js';

export class ImageCache {
  private busted = false;
  /** the cache-from images and their parents, looked up at the first probe */
  private allowed: Set<string> | undefined;

  constructor(
    private readonly images: BuildImages,
    private readonly opts: { noCache: boolean; cacheFrom: readonly string[] },
  ) {}

  /** A new stage probes afresh. */
  reset(): void {
    this.busted = false;
  }

  /** The image made by this step on `parentId` ('' for scratch) before, if the cache may use it. */
  probe(parentId: string, config: ContainerConfig): string | undefined {
    if (this.busted || this.opts.noCache) return undefined;
    const hit = this.find(parentId, config);
    if (hit === undefined) this.busted = true;
    return hit;
  }

  private find(parentId: string, config: ContainerConfig): string | undefined {
    if (this.opts.cacheFrom.length > 0) this.allowed ??= this.cacheFromChains();
    const { allowed } = this;
    let best: { id: string; created: number } | undefined;
    for (const id of this.images.children(parentId)) {
      if (allowed !== undefined && !allowed.has(id)) continue;
      const image = this.images.get(id);
      if (!sameConfig(image.config.container_config as ContainerConfig | undefined, config)) continue;
      const created = Date.parse(image.config.created ?? '') || 0;
      if (best === undefined || best.created < created) best = { id, created };
    }
    return best?.id;
  }

  /** The cache-from images that exist, and their parents. */
  private cacheFromChains(): Set<string> {
    const ids = new Set<string>();
    for (const ref of this.opts.cacheFrom) {
      let image = this.images.find(ref);
      while (image !== undefined && !ids.has(image.id)) {
        ids.add(image.id);
        image = image.parent === undefined ? undefined : this.images.find(image.parent);
      }
    }
    return ids;
  }
}

/** compare.go: what makes two steps' configs the same step. */
export function sameConfig(a: ContainerConfig | undefined, b: ContainerConfig): boolean {
  if (a === undefined || a === null || a.OpenStdin || b.OpenStdin) return false;
  if (Boolean(a.AttachStdout) !== Boolean(b.AttachStdout) || Boolean(a.AttachStderr) !== Boolean(b.AttachStderr)) return false;
  if ((a.User ?? '') !== (b.User ?? '') || Boolean(a.Tty) !== Boolean(b.Tty)) return false;
  const list = (x: readonly string[] | null | undefined) => x ?? [];
  const keys = (x: Record<string, unknown> | null | undefined) => Object.keys(x ?? {});
  const equalLists = (x: readonly string[], y: readonly string[]) => x.length === y.length && x.every((v, i) => v === y[i]);
  if (!equalLists(list(a.Cmd), list(b.Cmd)) || !equalLists(list(a.Env), list(b.Env)) || !equalLists(list(a.Entrypoint), list(b.Entrypoint))) return false;
  const aLabels = a.Labels ?? {};
  const bLabels = b.Labels ?? {};
  if (keys(aLabels).length !== keys(bLabels).length || keys(aLabels).some((k) => aLabels[k] !== bLabels[k])) return false;
  const sameKeys = (x: Record<string, unknown> | null | undefined, y: Record<string, unknown> | null | undefined) =>
    keys(x).length === keys(y).length && keys(x).every((k) => k in (y ?? {}));
  return sameKeys(a.ExposedPorts, b.ExposedPorts) && sameKeys(a.Volumes, b.Volumes);
}
