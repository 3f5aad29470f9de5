// Container events as dockerd publishes them: the container's labels, image and name (without its
// slash) beside what the action adds (exitCode, signal, execID...).
import type { EventBus } from '../events/event-bus.js';
import type { ContainerRecord } from './container-record.js';
import type { ContainerStore } from './container-store.js';

export class ContainerEvents {
  constructor(
    private readonly bus: EventBus,
    private readonly store: ContainerStore,
  ) {}

  publish(record: ContainerRecord, action: string, extra: Record<string, string> = {}): void {
    this.bus.publish('container', action, {
      id: record.id,
      attributes: { ...(record.config.Labels ?? {}), image: record.config.Image ?? '', name: record.name.slice(1), ...extra },
    });
  }

  /** A prune's end, with the space it freed (dockerd publishes it however little it removed). */
  pruned(reclaimedBytes: number): void {
    this.bus.publish('container', 'prune', { id: '', attributes: { reclaimed: String(reclaimedBytes) } });
  }

  /** For what happens to a container by ID (an exec, an attach); nothing once it is gone. */
  publishById(id: string, action: string, extra: Record<string, string> = {}): void {
    const record = this.store.byId(id);
    if (record) this.publish(record, action, extra);
  }
}
