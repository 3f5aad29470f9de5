// What the containers add to /info (how many, by state) and to /system/df (each with its sizes).
import type { ContainerStore } from './container-store.js';
import { isActive } from './container-state.js';
import { containerView, type ContainerView, type ContainerViewDeps } from './container-view.js';

export interface ContainerCounts {
  total: number;
  /** active and not paused (restarting ones count as running, as dockerd counts them) */
  running: number;
  paused: number;
  stopped: number;
}

export function containerInventory(store: ContainerStore, views: ContainerViewDeps) {
  return {
    counts(): ContainerCounts {
      const c = { total: 0, running: 0, paused: 0, stopped: 0 };
      for (const { state } of store.all()) {
        c.total++;
        if (state.status === 'paused') c.paused++;
        else if (isActive(state.status)) c.running++;
        else c.stopped++;
      }
      return c;
    },
    /** Every container with its sizes, newest first (as docker ps -a lists them). */
    dataUsage(): ContainerView[] {
      return store
        .all()
        .sort((a, b) => (a.created < b.created ? 1 : a.created > b.created ? -1 : 0))
        .map((r) => containerView(views, r, true));
    },
  };
}
