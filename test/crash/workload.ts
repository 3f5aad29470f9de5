// The workload's clients: each owns the objects it names (c<N>-…), loops over seeded random
// operations on them through the HTTP API, and keeps its model (model.ts) from the answers: an
// acknowledged operation changes the model; one cut by a kill, or failed, leaves its objects
// uncertain for the checker to settle. Caps on each kind of object keep the state bounded.
import { createHash } from 'node:crypto';
import { busyboxLayer } from '../helpers/busybox-image.js';
import { dockerSaveArchive, tarOf } from '../helpers/image-archives.js';
import { filesLayer, imageOf } from '../helpers/registry-images.js';
import { call, type CallOptions, type Outcome } from './api-call.js';
import type { ClientModel, ContainerModel, Ledger, OpKind, Uncertain } from './model.js';
import type { SeededRandom } from './seeded-random.js';
import { tarFile } from './tar-files.js';

export interface WorkloadEnv {
  socket: string;
  /** resolves when requests may go out (closed while the daemon is killed, restarted and checked) */
  gate(): Promise<void>;
  /** counts the daemon's kills: a request cut in the generation it was sent, with the daemon up, was not cut by a kill */
  generation(): number;
  daemonUp(): boolean;
  stopping(): boolean;
  ledger: Ledger;
  /** the registry's images for this client: the tag to pull and the image ID it gives */
  pullable(client: number): ReadonlyArray<{ ref: string; tag: string; id: string }>;
  /** something the daemon got wrong while it ran (an unexpected failure, a wrong answer) */
  anomaly(what: string, detail: string): void;
  /** settles the model's uncertain objects now, with the daemon up */
  reconcile(model: ClientModel): Promise<void>;
}

const CAPS = { containers: 3, running: 2, images: 3, volumes: 2, networks: 1, files: 2 };

export const WEIGHTS: Readonly<Record<OpKind, number>> = {
  run: 10,
  create: 5,
  start: 6,
  stop: 6,
  rm: 8,
  exec: 8,
  'cp-in': 6,
  'cp-out': 6,
  load: 4,
  commit: 3,
  pull: 3,
  build: 2,
  rmi: 5,
  'volume-create': 4,
  'volume-rm': 4,
  'network-create': 3,
  'network-rm': 3,
};

/** An operation ended without its acknowledgement; the outcome says how. */
class OpEnded extends Error {
  constructor(
    readonly outcome: Exclude<Outcome, { kind: 'ack' }>,
    readonly generation: number,
    readonly request: string,
  ) {
    super(`${request}: ${outcome.kind}`);
  }
}

export const sha256Hex = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** The content cp-in copies as the file `name`: 64 KiB of lines naming it. */
export function copiedFile(name: string): Buffer {
  const line = Buffer.from(`${name} ${'x'.repeat(100)}\n`);
  return Buffer.concat(Array.from({ length: Math.ceil(65536 / line.length) }, () => line));
}

const SLEEPER = ['sleep', '1000000'];

export class Client {
  private seq = 0;
  /** the objects the current operation changes: uncertain unless it is acknowledged */
  private targets: Uncertain[] = [];

  constructor(
    readonly model: ClientModel,
    private readonly rng: SeededRandom,
    private readonly env: WorkloadEnv,
  ) {}

  async loop(): Promise<void> {
    while (!this.env.stopping()) {
      await this.env.gate();
      if (this.env.stopping()) return;
      await this.perform(this.choose());
    }
  }

  /** A kind whose preconditions hold, by weight. */
  private choose(): OpKind {
    const m = this.model;
    const containers = m.containers.size;
    const running = m.running().length;
    const free = <T>(items: Iterable<T>, inUse: (t: T) => boolean) => [...items].some((t) => !inUse(t));
    const ok: Record<OpKind, boolean> = {
      run: containers < CAPS.containers && running < CAPS.running,
      create: containers < CAPS.containers,
      start: m.stopped().length > 0 && running < CAPS.running,
      stop: running > 0,
      rm: containers > 0,
      exec: running > 0,
      'cp-in': containers > 0,
      'cp-out': containers > 0,
      load: m.images.size < CAPS.images,
      commit: containers > 0 && m.images.size < CAPS.images,
      pull: m.images.size < CAPS.images && this.env.pullable(m.index).some((p) => !m.images.has(p.ref)),
      build: m.images.size < CAPS.images,
      rmi: m.images.size > 0,
      'volume-create': m.volumes.size < CAPS.volumes,
      'volume-rm': free(m.volumes, (v) => m.volumeInUse(v)),
      'network-create': m.networks.size < CAPS.networks,
      'network-rm': free(m.networks.keys(), (n) => m.networkInUse(n)),
    };
    const weights = Object.fromEntries(Object.entries(WEIGHTS).filter(([k]) => ok[k as OpKind])) as Record<OpKind, number>;
    return this.rng.weighted(weights);
  }

  async perform(kind: OpKind): Promise<void> {
    const ledger = this.env.ledger;
    ledger.count(kind, 'tried');
    this.targets = [];
    try {
      await this.op(kind);
      ledger.count(kind, 'acknowledged');
    } catch (err) {
      if (!(err instanceof OpEnded)) throw err;
      const o = err.outcome;
      const uncertain = this.targets;
      this.targets = [];
      if (o.kind === 'refused') {
        // the request never reached the daemon; what the operation's earlier requests did is in the model
        ledger.count(kind, 'refused');
        return;
      }
      this.model.uncertain.push(...uncertain);
      if (o.kind === 'cut') {
        ledger.count(kind, 'cut');
        // settled after the restart, unless the daemon was not killed: then a connection broke that should not have
        if (err.generation !== this.env.generation() || !this.env.daemonUp()) return;
        this.env.anomaly(`${kind}: the connection broke while the daemon ran`, `${err.request}: ${o.error}`);
      } else if (o.kind === 'hung') {
        ledger.count(kind, 'hung');
        this.env.anomaly(`${kind}: no answer`, `${err.request}: ${o.error}`);
      } else {
        ledger.count(kind, 'failed');
        ledger.failure(kind, o.message, err.request);
        this.env.anomaly(`${kind} failed: ${o.status} ${o.message}`, err.request);
      }
      await this.env.reconcile(this.model).catch(() => undefined);
    }
  }

  /** One request; throws OpEnded unless it is acknowledged. */
  private async send(method: string, urlPath: string, opts: CallOptions = {}): Promise<Buffer> {
    await this.env.gate();
    const generation = this.env.generation();
    const o = await call(this.env.socket, method, urlPath, opts);
    if (o.kind !== 'ack') throw new OpEnded(o, generation, `${method} ${urlPath}`);
    return o.body;
  }

  private async sendJson<T>(method: string, urlPath: string, opts: CallOptions = {}): Promise<T> {
    return JSON.parse((await this.send(method, urlPath, opts)).toString('utf8')) as T;
  }

  private name(kind: string): string {
    return `${this.model.prefix}-${kind}${this.seq++}`;
  }

  private pickContainer(filter: (c: ContainerModel) => boolean = () => true): ContainerModel {
    return this.rng.pick([...this.model.containers.values()].filter(filter));
  }

  private async op(kind: OpKind): Promise<void> {
    switch (kind) {
      case 'run':
        return this.create(true);
      case 'create':
        return this.create(false);
      case 'start':
        return this.start(this.pickContainer((c) => c.status !== 'running'));
      case 'stop':
        return this.stop();
      case 'rm':
        return this.remove();
      case 'exec':
        return this.exec();
      case 'cp-in':
        return this.copyIn();
      case 'cp-out':
        return this.copyOut();
      case 'load':
        return this.load();
      case 'commit':
        return this.commit();
      case 'pull':
        return this.pull();
      case 'build':
        return this.build();
      case 'rmi':
        return this.removeImage();
      case 'volume-create':
        return this.volumeCreate();
      case 'volume-rm':
        return this.volumeRemove();
      case 'network-create':
        return this.networkCreate();
      case 'network-rm':
        return this.networkRemove();
    }
  }

  private async create(andStart: boolean): Promise<void> {
    const m = this.model;
    const name = this.name('k');
    const volume = m.volumes.size > 0 && this.rng.chance(0.5) ? this.rng.pick([...m.volumes]) : undefined;
    const network = m.networks.size > 0 && this.rng.chance(0.5) ? this.rng.pick([...m.networks.keys()]) : undefined;
    const publishes = this.rng.chance(0.2);
    const body = {
      Image: 'busybox',
      Cmd: volume === undefined ? SLEEPER : ['sh', '-c', `echo ${name} > /data/${name}; exec sleep 1000000`],
      Labels: { 'berth.crash': m.prefix },
      ...(publishes ? { ExposedPorts: { '80/tcp': {} } } : {}),
      HostConfig: {
        ...(volume !== undefined ? { Binds: [`${volume}:/data`] } : {}),
        ...(network !== undefined ? { NetworkMode: network } : {}),
        ...(publishes ? { PortBindings: { '80/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }] } } : {}),
      },
    };
    this.targets.push({ kind: 'container', name, op: andStart ? 'run' : 'create' });
    const { Id } = await this.sendJson<{ Id: string }>('POST', `/containers/create?name=${name}`, { json: body });
    const c: ContainerModel = { name, id: Id, status: 'created', files: new Map(), volume, network, publishes };
    m.containers.set(name, c);
    this.targets = [];
    if (andStart) await this.start(c);
  }

  private async start(c: ContainerModel): Promise<void> {
    this.targets.push({ kind: 'container', name: c.name, op: 'start' });
    await this.send('POST', `/containers/${c.id}/start`);
    c.status = 'running';
    c.pid = undefined;
    const state = await this.sendJson<{ State: { Pid: number; Running: boolean } }>('GET', `/containers/${c.id}/json`);
    if (!state.State.Running) this.env.anomaly('start: acknowledged, but the container is not running', c.name);
    c.pid = state.State.Pid;
  }

  private async stop(): Promise<void> {
    const c = this.pickContainer((c) => c.status === 'running');
    this.targets.push({ kind: 'container', name: c.name, op: 'stop' });
    await this.send('POST', `/containers/${c.id}/stop?t=${this.rng.int(0, 1)}`);
    c.status = 'exited';
    c.pid = undefined;
  }

  private async remove(): Promise<void> {
    const c = this.pickContainer();
    this.targets.push({ kind: 'container', name: c.name, op: 'rm' });
    await this.send('DELETE', `/containers/${c.id}?force=1`);
    this.model.containers.delete(c.name);
    this.model.removed.containers.add(c.name);
  }

  private async exec(): Promise<void> {
    const c = this.pickContainer((c) => c.status === 'running');
    const marker = `exec-${this.name('e')}`;
    // with a terminal it runs under conmon; without, under runc exec alone
    const tty = this.rng.chance(0.3);
    const { Id } = await this.sendJson<{ Id: string }>('POST', `/containers/${c.id}/exec`, { json: { AttachStdout: true, AttachStderr: true, Tty: tty, Cmd: ['sh', '-c', `echo ${marker}`] } });
    const generation = this.env.generation();
    const out = await this.send('POST', `/exec/${Id}/start`, { json: { Detach: false, Tty: tty } });
    // the stream ends when the connection closes: a kill ends it too, without the marker
    if (!out.includes(marker)) {
      if (generation === this.env.generation() && this.env.daemonUp()) this.env.anomaly('exec: the output lacks its line', `${c.name}: ${JSON.stringify(out.toString('latin1'))}`);
      throw new OpEnded({ kind: 'cut', error: 'the stream ended without the output' }, generation, `POST /exec/${Id}/start`);
    }
  }

  private async copyIn(): Promise<void> {
    const c = this.pickContainer();
    const name = this.name('f');
    const content = copiedFile(name);
    const file = { path: `/tmp/${name}`, sha256: sha256Hex(content) };
    this.targets.push({ kind: 'container', name: c.name, op: 'cp-in', file });
    await this.send('PUT', `/containers/${c.id}/archive?path=/tmp`, { body: await tarOf([{ name, content }]), headers: { 'Content-Type': 'application/x-tar' } });
    c.files.set(file.path, file.sha256);
    // only the newest few are checked: the older ones stay in the container
    if (c.files.size > CAPS.files) c.files.delete(c.files.keys().next().value as string);
  }

  private async copyOut(): Promise<void> {
    const c = this.pickContainer();
    const files = [...c.files.entries()];
    const [file, sha] = files.length > 0 ? this.rng.pick(files) : ['/etc/passwd', undefined];
    const tar = await this.send('GET', `/containers/${c.id}/archive?path=${encodeURIComponent(file)}`);
    const got = await tarFile(tar, file.split('/').pop() ?? '');
    if (got === undefined) this.env.anomaly('cp-out: the archive lacks the file', `${c.name}:${file}`);
    else if (sha !== undefined && sha256Hex(got) !== sha) this.env.anomaly('cp-out: the file is not what was copied in', `${c.name}:${file}: ${got.length} bytes`);
  }

  private async load(): Promise<void> {
    const n = this.seq++;
    const tag = `crash/${this.model.prefix}-load:${n}`;
    const image = imageOf([await busyboxLayer(), await filesLayer({ [`crash/${this.model.prefix}-${n}.txt`]: `${tag}\n` })], { labels: { 'berth.crash': tag } });
    const archive = await dockerSaveArchive([{ ...image, repoTags: [tag] }]);
    this.targets.push({ kind: 'image', name: tag, op: 'load', expectedId: image.id });
    const out = await this.send('POST', '/images/load?quiet=1', { body: archive, stream: 'progress', headers: { 'Content-Type': 'application/x-tar' } });
    if (!out.includes(`Loaded image: ${tag}`)) this.env.anomaly('load: acknowledged without naming the image', out.toString('utf8').slice(0, 300));
    this.model.images.set(tag, image.id);
  }

  private async commit(): Promise<void> {
    const c = this.pickContainer();
    const n = this.seq++;
    const repo = `crash/${this.model.prefix}-commit`;
    this.targets.push({ kind: 'image', name: `${repo}:${n}`, op: 'commit' });
    const { Id } = await this.sendJson<{ Id: string }>('POST', `/commit?container=${c.id}&repo=${repo}&tag=${n}`, { json: {} });
    this.model.images.set(`${repo}:${n}`, Id);
  }

  private async pull(): Promise<void> {
    const m = this.model;
    const p = this.rng.pick(this.env.pullable(m.index).filter((p) => !m.images.has(p.ref)));
    m.revive(p.ref, p.id);
    this.targets.push({ kind: 'image', name: p.ref, op: 'pull', expectedId: p.id });
    const [repo] = p.ref.split(/:(?=[^:/]+$)/);
    await this.send('POST', `/images/create?fromImage=${encodeURIComponent(repo)}&tag=${p.tag}`, { stream: 'progress' });
    m.images.set(p.ref, p.id);
  }

  private async build(): Promise<void> {
    const n = this.seq++;
    const tag = `crash/${this.model.prefix}-build:${n}`;
    const context = await tarOf([
      { name: 'Dockerfile', content: `FROM busybox\nCOPY f /f\nRUN cat /f /f > /g\nLABEL berth.crash=${tag.replace(/[/:]/g, '-')}\n` },
      { name: 'f', content: `${tag}\n` },
    ]);
    this.targets.push({ kind: 'image', name: tag, op: 'build' });
    const out = await this.send('POST', `/build?t=${encodeURIComponent(tag)}&rm=1&forcerm=1`, { body: context, stream: 'progress', headers: { 'Content-Type': 'application/x-tar' } });
    const id = /"aux":\{"ID":"(sha256:[0-9a-f]{64})"\}/.exec(out.toString('utf8'))?.[1];
    if (id === undefined) {
      this.env.anomaly('build: acknowledged without the image ID', out.toString('utf8').slice(-300));
      return;
    }
    this.model.images.set(tag, id);
  }

  private async removeImage(): Promise<void> {
    const m = this.model;
    const tag = this.rng.pick([...m.images.keys()]);
    const id = m.images.get(tag) ?? '';
    this.targets.push({ kind: 'image', name: tag, op: 'rmi' });
    await this.send('DELETE', `/images/${encodeURIComponent(tag)}`);
    m.images.delete(tag);
    m.removed.images.add(tag);
    // each image has one tag of one client: the image itself goes
    if (![...m.images.values()].includes(id)) m.removed.imageIds.add(id);
  }

  private async volumeCreate(): Promise<void> {
    const name = this.name('v');
    this.targets.push({ kind: 'volume', name, op: 'volume-create' });
    await this.send('POST', '/volumes/create', { json: { Name: name, Labels: { 'berth.crash': this.model.prefix } } });
    this.model.volumes.add(name);
  }

  private async volumeRemove(): Promise<void> {
    const m = this.model;
    const name = this.rng.pick([...m.volumes].filter((v) => !m.volumeInUse(v)));
    this.targets.push({ kind: 'volume', name, op: 'volume-rm' });
    await this.send('DELETE', `/volumes/${name}`);
    m.volumes.delete(name);
    m.removed.volumes.add(name);
  }

  private async networkCreate(): Promise<void> {
    const name = this.name('n');
    this.targets.push({ kind: 'network', name, op: 'network-create' });
    const { Id } = await this.sendJson<{ Id: string }>('POST', '/networks/create', { json: { Name: name, CheckDuplicate: true, Labels: { 'berth.crash': this.model.prefix } } });
    this.model.networks.set(name, Id);
  }

  private async networkRemove(): Promise<void> {
    const m = this.model;
    const name = this.rng.pick([...m.networks.keys()].filter((n) => !m.networkInUse(n)));
    this.targets.push({ kind: 'network', name, op: 'network-rm' });
    await this.send('DELETE', `/networks/${name}`);
    m.networks.delete(name);
    m.removed.networks.add(name);
  }
}
