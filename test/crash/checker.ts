// The checks after each restart, and the settling of uncertain objects. After a kill -9 and a
// restart: every acknowledged operation is visible and whole, every acknowledged removal is gone,
// running containers run on with the same process; each object an operation left uncertain is
// whole or absent (and the model takes what it finds); nothing half-made is visible (a container
// without its root filesystem, an image without its layers, a volume without its record, a network
// without its bridge) and nothing is left beside the listings (files, mounts, runc state, conmons,
// cgroups, namespaces, links, iptables rules, staging and temporary files).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { call, getJson } from './api-call.js';
import { cgroupDirs, conmons, entries, exists, iptablesIn, linksIn, mountsUnder, processAlive, processesNaming, runcIds, tempFilesUnder } from './host-state.js';
import { logKeepersUnder } from '../helpers/leftovers.js';
import type { ClientModel, ContainerModel, Uncertain } from './model.js';
import type { SeededRandom } from './seeded-random.js';
import type { CrashTarget } from './target.js';
import { untar } from '../helpers/image-archives.js';
import { tarFile } from './tar-files.js';
import { copiedFile, sha256Hex } from './workload.js';

export interface Violation {
  /** when: the kill it followed, or the final cleanup */
  at: string;
  what: string;
  detail: string;
}

export interface ContainerInfo {
  Id: string;
  Name: string;
  Image: string;
  State: { Status: string; Running: boolean; Paused: boolean; Pid: number };
  HostConfig: { NetworkMode?: string; Binds?: string[] | null; PortBindings?: Record<string, unknown> | null };
  NetworkSettings: { Networks: Record<string, { NetworkID: string; EndpointID: string }> | null };
}

interface ImageSummary {
  Id: string;
  ParentId: string;
  RepoTags: string[] | null;
}

interface VolumeInfo {
  Name: string;
  Driver: string;
  Mountpoint: string;
}

interface NetworkInfo {
  Name: string;
  Id: string;
  Driver: string;
  Options: Record<string, string> | null;
}

/** What berthd lists, and the facts read from it. */
interface Listing {
  containers: Map<string, ContainerInfo>;
  images: ImageSummary[];
  tags: Map<string, string>;
  volumes: VolumeInfo[];
  networks: NetworkInfo[];
}

const sha256 = (s: string) => `sha256:${createHash('sha256').update(s).digest('hex')}`;

function chainIds(diffIds: readonly string[]): string[] {
  const out: string[] = [];
  for (const d of diffIds) out.push(out.length === 0 ? d : sha256(`${out[out.length - 1]} ${d}`));
  return out;
}

const hex = (digest: string) => digest.replace(/^sha256:/, '');

export class Checker {
  readonly violations: Violation[] = [];
  /** checks made, by name */
  readonly checks = new Map<string, number>();
  /** every container ID seen, for the final cgroup check */
  readonly containerIds = new Set<string>();
  /** what uncertain objects turned out to be, by operation: whole or absent (or, for a file copied in, its beginning) */
  readonly settled = new Map<string, { whole: number; absent: number; partial: number }>();
  /** objects no client owns, found after restarts (a build's step container or image cut by the kill) */
  readonly strays = { containers: 0, images: 0 };
  at = 'start';

  constructor(
    private readonly t: CrashTarget,
    private readonly models: readonly ClientModel[],
    private readonly rng: SeededRandom,
  ) {}

  private get socket(): string {
    return this.t.socket;
  }

  check(ok: boolean, what: string, detail = ''): boolean {
    this.checks.set(what, (this.checks.get(what) ?? 0) + 1);
    if (!ok) this.violations.push({ at: this.at, what, detail });
    return ok;
  }

  get checkCount(): number {
    return [...this.checks.values()].reduce((a, b) => a + b, 0);
  }

  private async list(): Promise<Listing> {
    const containers = new Map<string, ContainerInfo>();
    for (const c of await getJson<Array<{ Id: string }>>(this.socket, '/containers/json?all=1')) {
      const info = await this.inspectContainer(c.Id);
      if (info !== undefined) containers.set(info.Id, info);
    }
    for (const id of containers.keys()) this.containerIds.add(id);
    const images = await getJson<ImageSummary[]>(this.socket, '/images/json?all=1');
    const tags = new Map<string, string>();
    for (const i of images) for (const tag of i.RepoTags ?? []) if (tag !== '<none>:<none>') tags.set(tag, i.Id);
    const { Volumes } = await getJson<{ Volumes: VolumeInfo[] | null }>(this.socket, '/volumes');
    const networks = await getJson<NetworkInfo[]>(this.socket, '/networks');
    return { containers, images, tags, volumes: Volumes ?? [], networks };
  }

  private async inspectContainer(ref: string): Promise<ContainerInfo | undefined> {
    const o = await call(this.socket, 'GET', `/containers/${ref}/json`, { timeoutMs: 60_000 });
    if (o.kind === 'ack') return JSON.parse(o.body.toString('utf8')) as ContainerInfo;
    if (o.kind === 'failed' && o.status === 404) return undefined;
    throw new Error(`inspecting ${ref}: ${o.kind}`);
  }

  private async exists(urlPath: string): Promise<unknown> {
    const o = await call(this.socket, 'GET', urlPath, { timeoutMs: 60_000 });
    if (o.kind === 'ack') return JSON.parse(o.body.toString('utf8'));
    if (o.kind === 'failed' && o.status === 404) return undefined;
    throw new Error(`GET ${urlPath}: ${o.kind}`);
  }

  /** After a restart: the models against what berthd shows, the uncertain settled, then everything whole and nothing beside it. */
  async afterRestart(at: string): Promise<void> {
    this.at = at;
    let l = await this.list();
    for (const m of this.models) this.checkModel(m, l);
    for (const m of this.models) await this.reconcile(m, l);
    l = await this.list();
    await this.removeStrays(l);
    l = await this.list();
    await this.checkWhole(l);
    this.checkNothingBeside(l);
    await this.startSample(l);
    await this.saveSample(l);
  }

  /** The acknowledged state of one client against the listing (its uncertain objects aside). */
  private checkModel(m: ClientModel, l: Listing): void {
    const uncertain = (kind: Uncertain['kind'], name: string) => m.uncertain.some((u) => u.kind === kind && u.name === name);
    const byName = new Map([...l.containers.values()].map((c) => [c.Name.slice(1), c]));
    for (const c of m.containers.values()) {
      if (uncertain('container', c.name)) continue;
      const info = byName.get(c.name);
      if (!this.check(info !== undefined && info.Id === c.id, 'an acknowledged container is listed', c.name)) continue;
      if (c.status === 'running') {
        this.check(!info!.State.Paused, 'a running container is not left paused', c.name);
        if (this.check(info!.State.Running, 'a running container runs on after the kill', `${c.name}: ${info!.State.Status}`) && c.pid !== undefined) {
          this.check(info!.State.Pid === c.pid, 'a running container keeps its process', `${c.name}: pid ${c.pid}, now ${info!.State.Pid}`);
        }
      } else {
        this.check(!info!.State.Running, 'a stopped container stays stopped', `${c.name}: ${info!.State.Status}`);
      }
    }
    for (const name of m.removed.containers) this.check(!byName.has(name), 'a removed container stays removed', name);
    for (const [tag, id] of m.images) {
      if (uncertain('image', tag)) continue;
      this.check(l.tags.get(tag) === id, 'an acknowledged image is tagged', `${tag}: ${id}, listed ${l.tags.get(tag) ?? 'nothing'}`);
    }
    for (const tag of m.removed.images) if (!uncertain('image', tag)) this.check(!l.tags.has(tag), 'a removed tag stays removed', tag);
    const imageIds = new Set(l.images.map((i) => i.Id));
    for (const id of m.removed.imageIds) this.check(!imageIds.has(id), 'a removed image stays removed', id);
    const volumes = new Set(l.volumes.map((v) => v.Name));
    for (const v of m.volumes) if (!uncertain('volume', v)) this.check(volumes.has(v), 'an acknowledged volume is listed', v);
    for (const v of m.removed.volumes) this.check(!volumes.has(v), 'a removed volume stays removed', v);
    const networks = new Map(l.networks.map((n) => [n.Name, n.Id]));
    for (const [name, id] of m.networks) if (!uncertain('network', name)) this.check(networks.get(name) === id, 'an acknowledged network is listed', name);
    for (const name of m.removed.networks) this.check(!networks.has(name), 'a removed network stays removed', name);
  }

  /** Settles the client's uncertain objects: each whole or absent; the model takes what is there. */
  async reconcile(m: ClientModel, listing?: Listing): Promise<void> {
    const l = listing ?? (await this.list());
    const items = m.uncertain.splice(0);
    for (const u of items) {
      const outcome = await this.settle(m, u, l);
      const key = `${u.op} (${u.kind})`;
      const s = this.settled.get(key) ?? { whole: 0, absent: 0, partial: 0 };
      s[outcome]++;
      this.settled.set(key, s);
    }
  }

  private async settle(m: ClientModel, u: Uncertain, l: Listing): Promise<'whole' | 'absent' | 'partial'> {
    const detail = `${u.op} of ${u.name}`;
    switch (u.kind) {
      case 'container': {
        const info = await this.inspectContainer(u.name);
        if (info === undefined) {
          m.containers.delete(u.name);
          if (u.op === 'rm') m.removed.containers.add(u.name);
          return 'absent';
        }
        this.containerIds.add(info.Id);
        this.containerWhole(info, l, `uncertain ${detail}`);
        const before = m.containers.get(u.name);
        const binds = info.HostConfig.Binds ?? [];
        const mode = info.HostConfig.NetworkMode ?? 'default';
        const c: ContainerModel = {
          name: u.name,
          id: info.Id,
          status: info.State.Running ? 'running' : info.State.Status === 'created' ? 'created' : 'exited',
          pid: info.State.Running ? info.State.Pid : undefined,
          files: before?.files ?? new Map(),
          volume: binds.length > 0 ? binds[0].split(':')[0] : undefined,
          network: mode === 'default' || mode === 'bridge' ? undefined : mode,
          publishes: Object.keys(info.HostConfig.PortBindings ?? {}).length > 0,
        };
        m.containers.set(u.name, c);
        if (u.file !== undefined) {
          const got = await this.fileIn(info.Id, u.file.path);
          if (got !== undefined && sha256Hex(got) === u.file.sha256) {
            c.files.set(u.file.path, u.file.sha256);
          } else if (got !== undefined) {
            // an extraction writes in place, as dockerd's does: what a kill cut is the file's beginning
            const expected = copiedFile(path.basename(u.file.path));
            this.check(got.length < expected.length && expected.subarray(0, got.length).equals(got), 'a file copied in is whole, absent, or its beginning', `${u.name}:${u.file.path}: ${got.length} bytes`);
            return 'partial';
          }
        }
        return 'whole';
      }
      case 'image': {
        const info = (await this.exists(`/images/${encodeURIComponent(u.name)}/json`)) as { Id: string } | undefined;
        if (info === undefined) {
          m.images.delete(u.name);
          if (u.op === 'rmi') m.removed.images.add(u.name);
          return 'absent';
        }
        if (u.expectedId !== undefined) this.check(info.Id === u.expectedId, 'an image is the one asked for', `${detail}: ${info.Id}, not ${u.expectedId}`);
        await this.imageWhole(info.Id, `uncertain ${detail}`);
        m.revive(u.name, info.Id);
        m.images.set(u.name, info.Id);
        return 'whole';
      }
      case 'volume': {
        const info = (await this.exists(`/volumes/${u.name}`)) as VolumeInfo | undefined;
        if (info === undefined) {
          this.check(!exists(path.join(this.t.dataRoot, 'volumes', u.name)) && !exists(path.join(this.t.dataRoot, 'volume-records', `${u.name}.json`)), 'an absent volume left no folder or record', detail);
          m.volumes.delete(u.name);
          if (u.op === 'volume-rm') m.removed.volumes.add(u.name);
          return 'absent';
        }
        this.volumeWhole(info, `uncertain ${detail}`);
        m.volumes.add(u.name);
        return 'whole';
      }
      case 'network': {
        const info = (await this.exists(`/networks/${u.name}`)) as NetworkInfo | undefined;
        if (info === undefined) {
          m.networks.delete(u.name);
          if (u.op === 'network-rm') m.removed.networks.add(u.name);
          return 'absent';
        }
        this.networkWhole(info, `uncertain ${detail}`);
        m.networks.set(u.name, info.Id);
        return 'whole';
      }
    }
  }

  /** A file's content in a container (GET archive), or undefined when it is not there. */
  private async fileIn(id: string, file: string): Promise<Buffer | undefined> {
    const o = await call(this.socket, 'GET', `/containers/${id}/archive?path=${encodeURIComponent(file)}`, { timeoutMs: 60_000 });
    if (o.kind === 'failed' && o.status === 404) return undefined;
    if (!this.check(o.kind === 'ack', 'a container\'s archive can be read', `${id}:${file}: ${o.kind}`)) return undefined;
    return tarFile((o as { body: Buffer }).body, path.basename(file));
  }

  /** A container's record, root filesystem and image; a running one's process, runc state, mount and namespace; none of those for a stopped one. */
  private containerWhole(c: ContainerInfo, l: Listing, why: string): void {
    const d = this.t.dataRoot;
    const id = c.Id;
    const name = `${c.Name.slice(1)} (${why})`;
    this.check(['created', 'running', 'exited', 'paused'].includes(c.State.Status), 'a container is in a settled state', `${name}: ${c.State.Status}`);
    this.check(exists(path.join(d, 'containers', id, 'container.json')), 'a container has its record', name);
    this.check(exists(path.join(d, 'rootfs', id, 'rootfs.json')) && exists(path.join(d, 'rootfs', id, 'upper')), 'a container has its root filesystem', name);
    this.check(l.images.some((i) => i.Id === c.Image), 'a container\'s image exists', `${name}: ${c.Image}`);
    const mounts = new Set(mountsUnder(this.t.base));
    const merged = path.join(d, 'rootfs', id, 'merged');
    const netnsFile = path.join(this.t.execRoot, 'netns', id);
    const mode = c.HostConfig.NetworkMode ?? 'default';
    const ownNetns = !['host', 'none'].includes(mode) && !mode.startsWith('container:');
    if (c.State.Running) {
      this.check(processAlive(c.State.Pid), 'a running container\'s process is alive', `${name}: pid ${c.State.Pid}`);
      this.check(exists(path.join(this.t.execRoot, 'runc', id, 'state.json')), 'a running container has its runc state', name);
      this.check(mounts.has(merged), 'a running container\'s root filesystem is mounted', name);
      if (ownNetns) this.check(mounts.has(netnsFile), 'a running container has its network namespace', name);
    } else {
      this.check(!exists(path.join(this.t.execRoot, 'runc', id)), 'a stopped container has no runc state', name);
      this.check(!mounts.has(merged), 'a stopped container\'s root filesystem is not mounted', name);
      this.check(!exists(netnsFile), 'a stopped container has no network namespace', name);
    }
  }

  /** An image's record and history, and each of its layers unpacked. */
  private async imageWhole(id: string, why: string): Promise<void> {
    const name = `${id} (${why})`;
    this.check(exists(path.join(this.t.dataRoot, 'image', 'images', `${hex(id)}.json`)), 'an image has its record', name);
    this.check(exists(path.join(this.t.dataRoot, 'image', 'blobs', 'sha256', hex(id))), 'an image has its config', name);
    const info = (await this.exists(`/images/${id}/json`)) as { RootFS: { Layers?: string[] } } | undefined;
    if (!this.check(info !== undefined, 'a listed image can be inspected', name)) return;
    for (const chain of chainIds(info!.RootFS.Layers ?? [])) {
      const dir = path.join(this.t.dataRoot, 'image', 'layers', hex(chain));
      this.check(exists(path.join(dir, 'layer.json')) && exists(path.join(dir, 'diff')), 'an image has all its layers', `${name}: layer ${chain}`);
    }
    const history = await call(this.socket, 'GET', `/images/${id}/history`, { timeoutMs: 60_000 });
    this.check(history.kind === 'ack', 'an image\'s history can be read', name);
  }

  private volumeWhole(v: VolumeInfo, why: string): void {
    if (v.Driver !== 'local') return;
    this.check(exists(path.join(this.t.dataRoot, 'volume-records', `${v.Name}.json`)), 'a volume has its record', `${v.Name} (${why})`);
    this.check(exists(v.Mountpoint), 'a volume has its folder', `${v.Name} (${why})`);
  }

  private networkWhole(n: NetworkInfo, why: string): void {
    if (['host', 'none'].includes(n.Name)) return;
    this.check(exists(path.join(this.t.dataRoot, 'network', 'networks', `${n.Id}.json`)), 'a network has its record', `${n.Name} (${why})`);
  }

  /** Everything listed is whole. */
  private async checkWhole(l: Listing): Promise<void> {
    for (const c of l.containers.values()) this.containerWhole(c, l, 'listed');
    for (const i of l.images) await this.imageWhole(i.Id, 'listed');
    for (const v of l.volumes) this.volumeWhole(v, 'listed');
    for (const n of l.networks) this.networkWhole(n, 'listed');
    // a network with running containers on it has its bridge
    const bridges = new Set(linksIn(this.t.netns).filter((k) => k.kind === 'bridge').map((k) => k.name));
    for (const c of l.containers.values()) {
      if (!c.State.Running) continue;
      for (const [netName, ep] of Object.entries(c.NetworkSettings.Networks ?? {})) {
        const n = l.networks.find((x) => x.Id === ep.NetworkID);
        if (n === undefined || n.Driver !== 'bridge') continue;
        this.check(bridges.has(bridgeName(n)), 'a network with running containers has its bridge', `${netName}: ${bridgeName(n)} for ${c.Name}`);
      }
    }
  }

  /** Nothing on disk, in the mount table, in runc, among processes, cgroups, links or rules that the listing does not account for. */
  checkNothingBeside(l: Listing): void {
    const d = this.t.dataRoot;
    const x = this.t.execRoot;
    const ids = new Set(l.containers.keys());
    const running = new Set([...l.containers.values()].filter((c) => c.State.Running).map((c) => c.Id));
    const beside = (what: string, found: string[], known: Set<string>) => {
      const extra = found.filter((f) => !known.has(f));
      this.check(extra.length === 0, what, extra.join(', '));
    };
    beside('no container folder without its container', entries(path.join(d, 'containers')), ids);
    beside('no root filesystem without its container', entries(path.join(d, 'rootfs')).filter((e) => e !== 'l'), ids);
    beside('no image record without its image', entries(path.join(d, 'image', 'images')).map((f) => `sha256:${f.replace(/\.json$/, '')}`), new Set(l.images.map((i) => i.Id)));
    const chains = new Set<string>();
    for (const i of l.images) {
      try {
        const config = JSON.parse(readFileSync(path.join(d, 'image', 'blobs', 'sha256', hex(i.Id)), 'utf8')) as { rootfs?: { diff_ids?: string[] } };
        for (const c of chainIds(config.rootfs?.diff_ids ?? [])) chains.add(hex(c));
      } catch {
        // its config is checked above
      }
    }
    const layerDirs = entries(path.join(d, 'image', 'layers'));
    if (chains.size > 0) beside('no layer without an image that uses it', layerDirs, chains);
    const localVolumes = new Set(l.volumes.filter((v) => v.Driver === 'local').map((v) => v.Name));
    beside('no volume folder without its volume', entries(path.join(d, 'volumes')), localVolumes);
    beside('no volume record without its volume', entries(path.join(d, 'volume-records')).map((f) => f.replace(/\.json$/, '')), localVolumes);
    beside('no network record without its network', entries(path.join(d, 'network', 'networks')).map((f) => f.replace(/\.json$/, '')), new Set(l.networks.map((n) => n.Id)));
    beside('no network removal left unfinished', entries(path.join(d, 'network', 'removing')), new Set());
    const endpointOwners = entries(path.join(d, 'network', 'endpoints')).map((f) => {
      try {
        return (JSON.parse(readFileSync(path.join(d, 'network', 'endpoints', f), 'utf8')) as { containerId: string }).containerId;
      } catch {
        return `unreadable ${f}`;
      }
    });
    beside('no endpoint without its running container', endpointOwners, running);
    beside('no network namespace without its running container', entries(path.join(x, 'netns')), running);
    beside('no bundle without its running container', entries(path.join(x, 'containers')), running);
    beside('no exit file without its container', entries(path.join(x, 'exits')), ids);
    beside('no conmon socket folder without its container', entries(path.join(x, 's')), ids);
    beside('no exec folder after a restart', entries(path.join(x, 'execs')), new Set());
    beside('no runc state without its running container', runcIds(x), running);
    const allowedMounts = new Set([path.join(x, 'netns')]);
    for (const id of running) {
      allowedMounts.add(path.join(x, 'netns', id));
      allowedMounts.add(path.join(d, 'rootfs', id, 'merged'));
      allowedMounts.add(path.join(d, 'containers', id, 'mounts', 'shm'));
    }
    beside('no mount without its running container', mountsUnder(this.t.base), allowedMounts);
    const watched = conmons(this.t.base);
    beside('no conmon without its running container', watched.filter((c) => !c.exec).map((c) => c.containerId), running);
    this.check(watched.filter((c) => !c.exec).length === running.size, 'one conmon per running container', `${watched.length} conmons, ${running.size} running`);
    for (const id of this.containerIds) {
      if (running.has(id)) continue;
      const left = cgroupDirs(id).filter((dir) => exists(dir));
      this.check(left.length === 0, 'no cgroup without its running container', left.join(', '));
    }
    const bridges = new Set(l.networks.filter((n) => n.Driver === 'bridge').map(bridgeName));
    const links = linksIn(this.t.netns);
    beside('no bridge without its network', links.filter((k) => k.kind === 'bridge').map((k) => k.name), bridges);
    const endpoints = [...l.containers.values()].filter((c) => c.State.Running).reduce((n, c) => n + Object.keys(c.NetworkSettings.Networks ?? {}).length, 0);
    const veths = links.filter((k) => k.kind === 'veth');
    this.check(veths.length === endpoints, 'one veth per endpoint of a running container', `${veths.length} veths (${veths.map((v) => v.name).join(' ')}), ${endpoints} endpoints`);
    const rules = iptablesIn(this.t.netns);
    const ruleBridges = [...new Set(rules.flatMap((r) => r.match(/\bbr-[0-9a-f]{12}\b/g) ?? []))];
    beside('no iptables rule for a network that is gone', ruleBridges, bridges);
    const ruleIds = [...new Set(rules.flatMap((r) => r.match(/\b[0-9a-f]{64}\b/g) ?? []))];
    beside('no iptables rule for a container that is not running', ruleIds, running);
    for (const stage of entries(path.join(d, 'staging'))) this.check(entries(path.join(d, 'staging', stage)).length === 0, 'staging is empty after a restart', `${stage}: ${entries(path.join(d, 'staging', stage)).join(', ')}`);
    const temp = tempFilesUnder(d);
    this.check(temp.length === 0, 'no temporary file is left', temp.join(', '));
  }

  /** Containers and images no client owns (a build's step, cut by the kill): checked whole, then removed. */
  private async removeStrays(l: Listing): Promise<void> {
    const owned = new Set(this.models.flatMap((m) => [...m.containers.values()].map((c) => c.id)));
    for (const c of l.containers.values()) {
      if (owned.has(c.Id)) continue;
      this.strays.containers++;
      this.containerWhole(c, l, 'no client\'s');
      const o = await call(this.socket, 'DELETE', `/containers/${c.Id}?force=1`, { timeoutMs: 120_000 });
      this.check(o.kind === 'ack', 'a stray container can be removed', `${c.Name}: ${o.kind === 'failed' ? o.message : o.kind}`);
    }
    const dangling = l.images.filter((i) => (i.RepoTags ?? []).filter((t) => t !== '<none>:<none>').length === 0 && !l.images.some((j) => j.ParentId === i.Id));
    for (const i of dangling) {
      this.strays.images++;
      await this.imageWhole(i.Id, 'no client\'s');
      const o = await call(this.socket, 'DELETE', `/images/${i.Id}`, { timeoutMs: 120_000 });
      this.check(o.kind === 'ack', 'a stray image can be removed', `${i.Id}: ${o.kind === 'failed' ? o.message : o.kind}`);
    }
  }

  /** A few stopped containers start (their root filesystems and records are whole enough to run). */
  private async startSample(l: Listing): Promise<void> {
    const candidates = this.models.flatMap((m) => (m.running().length < 2 ? m.stopped().map((c) => ({ m, c })) : []));
    for (let i = 0; i < 2 && candidates.length > 0; i++) {
      const { c } = candidates.splice(Math.floor(this.rng.next() * candidates.length), 1)[0];
      if (!l.containers.has(c.id)) continue;
      const o = await call(this.socket, 'POST', `/containers/${c.id}/start`, { timeoutMs: 120_000 });
      if (!this.check(o.kind === 'ack', 'a stopped container starts after the restart', `${c.name}: ${o.kind === 'failed' ? o.message : o.kind}`)) continue;
      const info = await this.inspectContainer(c.id);
      if (this.check(info?.State.Running === true, 'a started container runs', c.name)) {
        c.status = 'running';
        c.pid = info!.State.Pid;
      }
    }
  }

  /** A few images save whole: every layer's tar is there and hashes to its diff ID. */
  private async saveSample(l: Listing): Promise<void> {
    const tagged = this.models.flatMap((m) => [...m.images.values()]).filter((id) => l.images.some((i) => i.Id === id));
    for (let i = 0; i < 2 && tagged.length > 0; i++) {
      const id = tagged.splice(Math.floor(this.rng.next() * tagged.length), 1)[0];
      const o = await call(this.socket, 'GET', `/images/${id}/get`, { timeoutMs: 120_000 });
      if (!this.check(o.kind === 'ack', 'an image saves', `${id}: ${o.kind === 'failed' ? o.message : o.kind}`)) continue;
      const problem = await checkSaved((o as { body: Buffer }).body);
      this.check(problem === undefined, 'a saved image has every layer whole', `${id}: ${problem}`);
    }
  }
}

export function bridgeName(n: NetworkInfo): string {
  return n.Options?.['com.docker.network.bridge.name'] ?? `br-${n.Id.slice(0, 12)}`;
}

/** What is wrong with a `docker save` archive (a layer missing or not hashing to its diff ID), or undefined. */
async function checkSaved(tar: Buffer): Promise<string | undefined> {
  const files = await untar(tar);
  const manifest = files.get('manifest.json');
  if (manifest === undefined) return 'no manifest.json';
  const [entry] = JSON.parse(manifest.toString('utf8')) as Array<{ Config: string; Layers: string[] }>;
  const config = files.get(entry.Config);
  if (config === undefined) return `no ${entry.Config}`;
  const diffIds = (JSON.parse(config.toString('utf8')) as { rootfs: { diff_ids: string[] } }).rootfs.diff_ids;
  if (diffIds.length !== entry.Layers.length) return `${entry.Layers.length} layers for ${diffIds.length} diff IDs`;
  for (const [i, layer] of entry.Layers.entries()) {
    const data = files.get(layer);
    if (data === undefined) return `no ${layer}`;
    const digest = `sha256:${createHash('sha256').update(data).digest('hex')}`;
    if (digest !== diffIds[i]) return `${layer} hashes to ${digest}, not ${diffIds[i]}`;
  }
  return undefined;
}

/** The final cleanup through the API: every container, image but busybox, volume and user network removed; then the listings are empty. */
export async function removeEverything(c: Checker, t: CrashTarget): Promise<void> {
  c.at = 'final cleanup';
  const del = async (what: string, urlPath: string) => {
    const o = await call(t.socket, 'DELETE', urlPath, { timeoutMs: 120_000 });
    c.check(o.kind === 'ack', `the final cleanup removes every ${what}`, `${urlPath}: ${o.kind === 'failed' ? `${o.status} ${o.message}` : o.kind}`);
  };
  for (const k of await getJson<Array<{ Id: string }>>(t.socket, '/containers/json?all=1')) {
    c.containerIds.add(k.Id);
    await del('container', `/containers/${k.Id}?force=1`);
  }
  for (const i of await getJson<ImageSummary[]>(t.socket, '/images/json')) {
    if (i.Id === t.busyboxId) continue;
    await del('image', `/images/${i.Id}?force=1`);
  }
  for (const v of (await getJson<{ Volumes: VolumeInfo[] | null }>(t.socket, '/volumes')).Volumes ?? []) await del('volume', `/volumes/${v.Name}`);
  for (const n of await getJson<NetworkInfo[]>(t.socket, '/networks')) if (!['bridge', 'host', 'none'].includes(n.Name)) await del('network', `/networks/${n.Id}`);
  c.check((await getJson<unknown[]>(t.socket, '/containers/json?all=1')).length === 0, 'no container is left', '');
  const images = await getJson<ImageSummary[]>(t.socket, '/images/json?all=1');
  c.check(images.length === 1 && images[0].Id === t.busyboxId, 'only busybox is left', images.map((i) => `${i.Id} ${(i.RepoTags ?? []).join(',')}`).join('; '));
}

/** After the daemon stopped: nothing of the workload is left anywhere. */
export function checkNothingLeft(c: Checker, t: CrashTarget, busyboxLayers: readonly string[]): void {
  c.at = 'after the final stop';
  const d = t.dataRoot;
  const x = t.execRoot;
  const none = (what: string, found: string[]) => c.check(found.length === 0, what, found.join(', '));
  none('no mount is left', mountsUnder(t.base));
  none('no runc container is left', runcIds(x));
  none('no process is left (conmon, runc, plugins)', processesNaming(t.base).map((p) => `${p.pid} ${p.cmdline.join(' ').slice(0, 200)}`));
  none('no log pipe keeper is left', logKeepersUnder(t.base));
  none('no cgroup is left', [...c.containerIds].flatMap(cgroupDirs).filter((dir) => exists(dir)));
  none('no network namespace file is left', entries(path.join(x, 'netns')));
  const links = linksIn(t.netns);
  none('no veth is left', links.filter((k) => k.kind === 'veth').map((k) => k.name));
  none('no bridge but the default one is left', links.filter((k) => k.kind === 'bridge' && k.name !== 'berth0').map((k) => k.name));
  const rules = iptablesIn(t.netns);
  none('no iptables rule of a user network is left', rules.filter((r) => /\bbr-[0-9a-f]{12}\b/.test(r)));
  // portmap's own chains (CNI-HOSTPORT-*) stay once made, as dockerd's DOCKER chains do; a container's DNAT chain (CNI-DN-…) goes with it
  none('no iptables rule of a container is left', rules.filter((r) => /\b[0-9a-f]{64}\b/.test(r) || /CNI-DN-/.test(r)));
  for (const dir of ['containers', 'volumes', 'volume-records', path.join('network', 'endpoints')]) none(`nothing is left in ${dir}`, entries(path.join(d, dir)));
  none('nothing is left in rootfs', entries(path.join(d, 'rootfs')).filter((e) => e !== 'l'));
  none('no layer but busybox\'s is left', entries(path.join(d, 'image', 'layers')).filter((e) => !busyboxLayers.includes(e)));
  none('no image record but busybox\'s is left', entries(path.join(d, 'image', 'images')).filter((e) => e !== `${hex(t.busyboxId)}.json`));
  none('nothing is left in staging', entries(path.join(d, 'staging')).flatMap((s) => entries(path.join(d, 'staging', s)).map((e) => `${s}/${e}`)));
  none('no temporary file is left', tempFilesUnder(d));
  for (const dir of ['containers', 'exits', 's', 'execs', 'runc', 'runc-logs']) none(`nothing is left in the exec root's ${dir}`, entries(path.join(x, dir)));
}
