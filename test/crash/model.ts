// What each client believes berthd holds, from the answers it was given: the objects it made and
// acknowledged (with what it knows of them), those it removed and was told so, and the objects an
// operation left uncertain (cut by a kill, or failed): each of those must be whole or absent, and
// the model takes whichever it finds. Plus the ledger of every operation's outcome, by kind.
export type OpKind =
  | 'run'
  | 'create'
  | 'start'
  | 'stop'
  | 'rm'
  | 'exec'
  | 'cp-in'
  | 'cp-out'
  | 'load'
  | 'commit'
  | 'pull'
  | 'build'
  | 'rmi'
  | 'volume-create'
  | 'volume-rm'
  | 'network-create'
  | 'network-rm';

export const OP_KINDS: readonly OpKind[] = ['run', 'create', 'start', 'stop', 'rm', 'exec', 'cp-in', 'cp-out', 'load', 'commit', 'pull', 'build', 'rmi', 'volume-create', 'volume-rm', 'network-create', 'network-rm'];

export type ContainerStatus = 'created' | 'running' | 'exited';

export interface ContainerModel {
  name: string;
  id: string;
  status: ContainerStatus;
  /** the container's process, known once a start was acknowledged and inspected */
  pid?: number;
  /** files copied in and acknowledged: path → sha256 of the content */
  files: Map<string, string>;
  volume?: string;
  network?: string;
  publishes: boolean;
}

export type ObjectKind = 'container' | 'image' | 'volume' | 'network';

export interface Uncertain {
  kind: ObjectKind;
  /** the container's or volume's or network's name, the image's tag */
  name: string;
  op: OpKind;
  /** an image whose ID is known before it exists (a load, a pull) */
  expectedId?: string;
  /** a file whose copy was cut: whole or absent */
  file?: { path: string; sha256: string };
}

export class ClientModel {
  readonly containers = new Map<string, ContainerModel>();
  /** tag → image ID */
  readonly images = new Map<string, string>();
  readonly volumes = new Set<string>();
  /** name → ID */
  readonly networks = new Map<string, string>();
  /** removals that were acknowledged: never visible again (names are never reused) */
  readonly removed = { containers: new Set<string>(), images: new Set<string>(), imageIds: new Set<string>(), volumes: new Set<string>(), networks: new Set<string>() };
  readonly uncertain: Uncertain[] = [];

  constructor(readonly index: number) {}

  get prefix(): string {
    return `c${this.index}`;
  }

  /** A tag and image that may exist again: a pull brings back what an earlier removal removed. */
  revive(tag: string, id: string): void {
    this.removed.images.delete(tag);
    this.removed.imageIds.delete(id);
  }

  running(): ContainerModel[] {
    return [...this.containers.values()].filter((c) => c.status === 'running');
  }

  stopped(): ContainerModel[] {
    return [...this.containers.values()].filter((c) => c.status !== 'running');
  }

  volumeInUse(name: string): boolean {
    return [...this.containers.values()].some((c) => c.volume === name);
  }

  networkInUse(name: string): boolean {
    return [...this.containers.values()].some((c) => c.network === name);
  }
}

export interface KindCounts {
  tried: number;
  acknowledged: number;
  failed: number;
  /** in flight when the daemon was killed */
  cut: number;
  /** not sent: the daemon was down */
  refused: number;
  hung: number;
}

export class Ledger {
  readonly byKind = Object.fromEntries(OP_KINDS.map((k) => [k, { tried: 0, acknowledged: 0, failed: 0, cut: 0, refused: 0, hung: 0 }])) as Record<OpKind, KindCounts>;
  /** failures by kind and message (the first few requests of each) */
  readonly failures = new Map<string, { count: number; example: string }>();

  count(kind: OpKind, outcome: keyof KindCounts): void {
    this.byKind[kind][outcome]++;
  }

  failure(kind: OpKind, message: string, example: string): void {
    const key = `${kind}: ${message.replace(/[0-9a-f]{12,64}/g, '<id>').replace(/c\d+-[a-z]+\d+/g, '<name>').slice(0, 200)}`;
    const f = this.failures.get(key) ?? { count: 0, example };
    f.count++;
    this.failures.set(key, f);
  }

  totals(): KindCounts {
    const t = { tried: 0, acknowledged: 0, failed: 0, cut: 0, refused: 0, hung: 0 };
    for (const c of Object.values(this.byKind)) for (const k of Object.keys(t) as Array<keyof KindCounts>) t[k] += c[k];
    return t;
  }
}
