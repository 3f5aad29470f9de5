// The images area: its staging folder swept of what an interrupted load or import left, the store,
// and garbage collection of what interrupted operations left, before anything else looks at it.
// It answers four users: the image routes (`api`, which structurally satisfies their backend
// interface, pulls and pushes included), the registry queries (`distribution`), the containers
// (`store`) and the system routes (`inventory`).
import path from 'node:path';
import type { Logger } from 'pino';
import type { ContainerUsage } from '../container/container-usage.js';
import type { EventBus } from '../events/event-bus.js';
import { FilterArgs } from '../lib/filters.js';
import { Staging } from '../store/staging.js';
import { pruneSelection, selectImages } from './image-filters.js';
import { prepareCommit } from './image-commit.js';
import { imageImport, type ImportOptions } from './image-import.js';
import { imageLoad } from './image-load.js';
import { ImageRemoval } from './image-removal.js';
import { imageSave } from './image-save.js';
import { ImageStore, type Image } from './image-store.js';
import { decodeAuthHeader, loginBody, type AuthConfig } from './registry/auth-header.js';
import { EngineError } from '../errors.js';
import type { ProgressSink } from '../lib/stream-session.js';
import type { Digest } from './digest.js';
import { formatReference, parseNormalizedReference } from './reference.js';
import { imagePull, type PullRequest } from './registry/image-pull.js';
import { imagePush, type PushRequest } from './registry/image-push.js';
import type { RegistrySettings } from './registry/registry-hosts.js';
import { distributionInspect, login, search } from './registry/registry-queries.js';

export interface ImagesDeps {
  dataRoot: string;
  events: EventBus;
  log: Logger;
  usage: ContainerUsage;
  /** how registries are reached (insecure-registries, registry-mirrors, certs.d) and how many layers move at once */
  registry: { settings: RegistrySettings; maxConcurrentDownloads: number; maxConcurrentUploads: number };
}

/** Where a pull that nobody watches writes its progress. */
const SILENT: ProgressSink = { stream: async () => {}, status: async () => {}, progress: async () => {}, aux: async () => {} };

export function createImages(deps: ImagesDeps) {
  const { events, usage } = deps;
  const { settings } = deps.registry;
  const staging = new Staging(path.join(deps.dataRoot, 'staging', 'image'));
  const swept = staging.sweep();
  if (swept > 0) deps.log.info({ swept }, 'removed what interrupted image operations left');
  const store = new ImageStore({ root: path.join(deps.dataRoot, 'image'), staging, events, usage });
  // layers and blobs no image names: what an interrupted operation left (container usage is known by now)
  store.collectGarbage();
  const removal = new ImageRemoval({ store, events, usage });

  const api = {
    /** Without `all`, untagged images with children (a build's intermediate images) are left out, as dockerd's. */
    list(filters: FilterArgs, all: boolean) {
      const images = store.list();
      const parents = new Set(images.map((i) => i.parent));
      return selectImages(
        images.filter((i) => all || i.refs.length > 0 || !parents.has(i.id)),
        filters,
        (ref) => store.get(ref),
      );
    },
    get: (refOrId: string) => store.get(refOrId),
    history: (refOrId: string) => store.history(refOrId),
    tag: (refOrId: string, repo: string, tag: string) => store.tag(refOrId, repo, tag),
    remove: (refOrId: string, opts: { force: boolean; prune: boolean }) => removal.remove(refOrId, opts),
    prune: (filters: FilterArgs) => removal.prune(pruneSelection(filters)),
    load: () => imageLoad({ store, staging, events }),
    importImage: (opts: ImportOptions) => imageImport({ store, events }, opts),
    save: (names: string[]) => imageSave({ store, events }, names),
    pull: ({ registryAuth, ...req }: Omit<PullRequest, 'auth'> & { registryAuth: string | undefined }) =>
      imagePull({ store, staging, events, settings, maxConcurrentDownloads: deps.registry.maxConcurrentDownloads }, { ...req, auth: decodeAuthHeader(registryAuth) }),
    push: ({ registryAuth, ...req }: Omit<PushRequest, 'auth'> & { registryAuth: string | undefined }) =>
      imagePush({ store, staging, events, settings, maxConcurrentUploads: deps.registry.maxConcurrentUploads }, { ...req, auth: decodeAuthHeader(registryAuth) }),
    usage: () => ({ layersSizeBytes: store.layersSizeBytes(), sharedSizeBytes: store.sharedSizes() }),
    layerDirs: (image: Image) => store.layerDirs(image),
  };
  const inventory = {
    count: () => store.count(),
    dataUsage() {
      const shared = store.sharedSizes();
      // newest first, as dockerd's df lists them
      const images = api.list(FilterArgs.empty(), false).map((image) => {
        const users = usage.imageUsers(image.id);
        return { image, sharedSizeBytes: shared.get(image.id) ?? 0, containers: users.active.length + users.inactive.length };
      });
      return { layersSizeBytes: store.layersSizeBytes(), images };
    },
  };
  const distribution = {
    login: (body: unknown) => login(settings, loginBody(body)),
    inspect: (name: string, registryAuth: string | undefined) => distributionInspect(settings, name, decodeAuthHeader(registryAuth)),
    search: (term: string, limit: number, registryAuth: string | undefined) => search(settings, term, limit, decodeAuthHeader(registryAuth)),
  };
  const pullDeps = { store, staging, events, settings, maxConcurrentDownloads: deps.registry.maxConcurrentDownloads };
  /** what a build needs: its base images (pulled when absent), the cache's candidates, its tags */
  const build = {
    get: api.get,
    find(refOrId: string): Image | undefined {
      try {
        return store.get(refOrId);
      } catch {
        return undefined;
      }
    },
    children: (id: string) => (id === '' ? store.list().filter((i) => i.parent === undefined).map((i) => i.id) : store.children(id as Digest)),
    async pull(name: string, auth: AuthConfig | undefined, platform: string, out: ProgressSink, signal: AbortSignal): Promise<void> {
      const ref = parseNormalizedReference(name);
      const tag = ref.digest ?? ref.tag ?? 'latest';
      await imagePull(pullDeps, { fromImage: formatReference({ domain: ref.domain, path: ref.path }), tag, platform, auth }).run({ out, signal });
    },
    tag: (id: string, repo: string, tag: string) => store.tag(id, repo, tag),
  };
  /** a swarm task's image: pulled only when the node lacks it (tests and offline nodes run what they have), with the service's credentials */
  const tasks = {
    async ensure(name: string, registryAuth: string | undefined): Promise<void> {
      if (build.find(name) !== undefined) return;
      // dockerd's executor only logs a failed pull; the create that follows fails in these words
      await build.pull(name, decodeAuthHeader(registryAuth), '', SILENT, new AbortController().signal).catch((err: unknown) => {
        deps.log.warn({ err, image: name }, 'pulling the image of a swarm task failed');
        throw new EngineError('notFound', `No such image: ${name}`, { cause: err });
      });
    },
  };
  return {
    api,
    build,
    tasks,
    /** POST /auth, GET /distribution/{name}/json and GET /images/search: a registry asked, no image moved */
    distribution,
    /** what containers need: the image a create names, the layer directories its root filesystem stacks, and commits */
    store: { get: api.get, layerDirs: api.layerDirs, prepareCommit: (name: { repo: string; tag: string }) => prepareCommit(store, name) },
    /** what /info and /system/df show of images */
    inventory,
  };
}
