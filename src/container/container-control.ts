// top, stats and update as the container area serves them: a running container's processes and
// counters are found through its cgroup (where runc put it: containerCgroupsPath), updates are
// checked against what this machine can grant (create-limits.ts).
import { invalidParameter } from '../errors.js';
import type { ItemSink, StreamSession } from '../lib/stream-session.js';
import type { CreateLimits } from './config/create-limits.js';
import type { ContainerEvents } from './container-events.js';
import type { ContainerService } from './container-service.js';
import type { ContainerRecord } from './container-record.js';
import { hasProcess, notRunningError, restartingError } from './container-state.js';
import type { ContainerStore } from './container-store.js';
import { containerCgroupsPath } from './spec/build-spec.js';
import { cgroupPids, containerCgroup } from './stats/container-cgroup.js';
import { sampleCgroup, statsFrames, type StatsFrame } from './stats/container-stats.js';
import { containerTop } from './top/container-top.js';
import type { TopResult } from './top/ps-output.js';
import { verifyUpdate } from './update/container-update.js';
import { decodeUpdateBody } from './update/update-body.js';

export interface StatsRequest {
  stream: boolean;
  /** one sample without a "pre" (API 1.41) */
  oneShot: boolean;
}

/** The frames of one container; `container` names it in each (with its slash). */
export interface StatsSession extends StreamSession<ItemSink<StatsFrame>> {
  container: { id: string; name: string };
}

export interface ContainerControlDeps {
  service: ContainerService;
  store: ContainerStore;
  events: ContainerEvents;
  limits: CreateLimits;
  /** the parent cgroup of containers that name none; the default's when undefined */
  cgroupParent?: string;
}

export function containerControl(deps: ContainerControlDeps) {
  const { service, store } = deps;
  /** The cgroup of the container's current run; undefined when it has no process. */
  const runningCgroup = (id: string): string | undefined => {
    const r = store.byId(id);
    return r !== undefined && hasProcess(r.state.status) ? containerCgroupsPath(id, r.hostConfig, deps.cgroupParent) : undefined;
  };

  return {
    /** ps_args are checked first (500 as dockerd), then the container: 404, or 409 when not running or restarting. */
    async top(ref: string, psArgs: string): Promise<TopResult> {
      let id = '';
      const result = await containerTop(psArgs, async () => {
        const r = service.get(ref);
        id = r.id;
        if (r.state.status === 'restarting') throw restartingError(r.id);
        const cgroupsPath = runningCgroup(r.id);
        const pids = cgroupsPath === undefined ? undefined : cgroupPids(containerCgroup(cgroupsPath));
        if (pids === undefined) throw notRunningError(r.id);
        return pids;
      });
      deps.events.publishById(id, 'top');
      return result;
    },

    /** A missing container's 404 first, then stream with one-shot (400), as the reference answers. */
    stats(ref: string, req: StatsRequest): StatsSession {
      const r = service.get(ref);
      if (req.stream && req.oneShot) throw invalidParameter('cannot have stream=true and one-shot=true');
      const id = r.id;
      const source = {
        sample() {
          const cgroupsPath = runningCgroup(id);
          return cgroupsPath === undefined ? undefined : sampleCgroup(cgroupsPath, ownNetworkPid(store.byId(id)));
        },
        exists: () => store.byId(id) !== undefined,
      };
      return {
        container: { id, name: r.name },
        async run({ out, signal }) {
          for await (const frame of statsFrames(source, { ...req, signal })) await out.write(frame);
        },
      };
    },

    /** Decodes, checks and applies an UpdateConfig body; the warnings. `pidsLimit`: the API version honours PidsLimit. */
    async update(ref: string, body: unknown, opts: { pidsLimit: boolean }): Promise<{ warnings: string[] }> {
      // as dockerd: the body is decoded before the container is looked up, and checked after
      const change = decodeUpdateBody(body, opts);
      const id = service.get(ref).id;
      const warnings = verifyUpdate(change, deps.limits);
      await service.update(id, change);
      return { warnings };
    },
  };
}

/** The container's process, when it runs in a network namespace of its own (not the host's, nor another's). */
function ownNetworkPid(record: ContainerRecord | undefined): number | undefined {
  const mode = record?.hostConfig.NetworkMode ?? '';
  if (record === undefined || mode === 'host' || mode.startsWith('container:') || record.state.pid <= 0) return undefined;
  return record.state.pid;
}
