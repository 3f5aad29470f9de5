// Untagging and deleting images (DELETE /images/{name}) and pruning them, with dockerd's conflicts
// (moby v20.10 daemon/images/image_delete.go): the containers an image has, as the ContainerUsage
// port tells, and the images committed on it decide what may go. An image deleted takes along the
// untagged parents nothing else needs (a build's intermediate images), unless noprune.
import { conflict } from '../errors.js';
import type { ContainerUsage } from '../container/container-usage.js';
import type { EventBus } from '../events/event-bus.js';
import type { Digest } from './digest.js';
import type { Image, ImageStore } from './image-store.js';
import { familiarString, formatReference, isIdReference, parseNormalizedReference, repositoryOf, withDefaultTag } from './reference.js';

export interface DeleteItem {
  untagged?: string;
  deleted?: string;
}

export interface PruneResult {
  items: DeleteItem[];
  reclaimedBytes: number;
}

export class ImageRemoval {
  private readonly store: ImageStore;
  private readonly events: EventBus;
  private readonly containers: ContainerUsage;

  constructor(opts: { store: ImageStore; events: EventBus; usage: ContainerUsage }) {
    this.store = opts.store;
    this.events = opts.events;
    this.containers = opts.usage;
  }

  /** Untags a reference, and deletes the image when nothing names it any more. */
  async remove(refOrId: string, opts: { force: boolean; prune: boolean }): Promise<DeleteItem[]> {
    const id = this.store.resolveId(refOrId);
    const items: DeleteItem[] = [];
    const refs = this.store.refsOf(id);
    const byId = isIdReference(refOrId, id);
    const usedBy = this.containers.imageUsers(id);
    if (!byId) {
      const ref = withDefaultTag(parseNormalizedReference(refOrId));
      const user = usedBy.active[0] ?? usedBy.inactive[0];
      if (refs.length === 1 && user !== undefined && (!opts.force || usedBy.active.length > 0)) {
        throw conflict(
          `conflict: unable to remove repository reference "${refOrId}" (must force) - container ${user.slice(0, 12)} is using its referenced image ${shortId(id)}`,
        );
      }
      await this.store.untag(ref);
      items.push({ untagged: familiarString(ref) });
      this.events.publish('image', 'untag', { id, attributes: { name: id } });
      // a tag gone with no other tag of its repository left takes that repository's digests along, as dockerd's
      const repo = repositoryOf(formatReference(ref));
      const left = this.store.refsOf(id);
      if (ref.digest === undefined && !left.some((r) => !r.includes('@') && repositoryOf(r) === repo)) {
        for (const digestRef of left.filter((r) => r.includes('@') && repositoryOf(r) === repo)) {
          const parsed = parseNormalizedReference(digestRef);
          await this.store.untag(parsed);
          items.push({ untagged: familiarString(parsed) });
        }
      }
      // the last name gone, an image with children stays, untagged, as an intermediate image
      if (this.store.refsOf(id).length > 0 || this.store.children(id).length > 0) return items;
    } else if (this.store.children(id).length > 0) {
      throw conflict(`conflict: unable to delete ${shortId(id)} (cannot be forced) - image has dependent child images`);
    } else if (usedBy.active.length > 0) {
      throw conflict(`conflict: unable to delete ${shortId(id)} (cannot be forced) - image is being used by running container ${usedBy.active[0].slice(0, 12)}`);
    } else if (usedBy.inactive.length > 0 && !opts.force) {
      throw conflict(`conflict: unable to delete ${shortId(id)} (must be forced) - image is being used by stopped container ${usedBy.inactive[0].slice(0, 12)}`);
    } else if (refs.length > 1 && !opts.force && new Set(refs.map(repositoryOf)).size > 1) {
      throw conflict(`conflict: unable to delete ${shortId(id)} (must be forced) - image is referenced in multiple repositories`);
    } else {
      items.push(...this.untagAll(id, refs));
    }
    items.push(...(await this.deleteImage(id, opts.prune)));
    return items;
  }

  /** Deletes the images `selected` picks (see image-filters.ts) that no container uses. */
  async prune(selected: (image: Image) => boolean): Promise<PruneResult> {
    const items: DeleteItem[] = [];
    const sizeBefore = this.store.layersSizeBytes();
    for (const image of this.store.list()) {
      // only images nothing was committed on; one deleted with its child by now is gone
      if (!this.store.hasImage(image.id) || this.store.children(image.id).length > 0 || !selected(image)) continue;
      const usedBy = this.containers.imageUsers(image.id);
      if (usedBy.active.length + usedBy.inactive.length > 0) continue;
      items.push(...this.untagAll(image.id, image.refs), ...(await this.deleteImage(image.id, true)));
    }
    const reclaimedBytes = sizeBefore - this.store.layersSizeBytes();
    this.events.publish('image', 'prune', { id: '', attributes: { reclaimed: String(reclaimedBytes) } });
    return { items, reclaimedBytes };
  }

  /** Reports and announces the untagging of every name of an image about to be deleted (which drops them in one write). */
  private untagAll(id: Digest, refs: string[]): DeleteItem[] {
    return refs.map((ref) => {
      this.events.publish('image', 'untag', { id, attributes: { name: id } });
      return { untagged: familiarString(parseNormalizedReference(ref)) };
    });
  }

  private async deleteImage(id: Digest, prune: boolean): Promise<DeleteItem[]> {
    const { parent } = this.store.get(id);
    const items: DeleteItem[] = [{ deleted: id }];
    await this.store.delete(id);
    this.events.publish('image', 'delete', { id, attributes: { name: id } });
    if (!prune) return items;
    for (const chainId of this.store.collectGarbage()) items.push({ deleted: chainId });
    if (parent !== undefined && this.unneeded(parent)) items.push(...(await this.deleteImage(parent, true)));
    return items;
  }

  /** Whether nothing names, uses or was committed on an image: a parent that may go with its child. */
  private unneeded(id: Digest): boolean {
    const usedBy = this.containers.imageUsers(id);
    return this.store.refsOf(id).length === 0 && this.store.children(id).length === 0 && usedBy.active.length + usedBy.inactive.length === 0;
  }
}

function shortId(id: Digest): string {
  return id.slice(7, 19);
}
