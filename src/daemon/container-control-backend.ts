// The top, stats and update part of the Container routes' backend: the service's records, the
// container's cgroup (found from its bundle) and the create limits that updates are checked with.
import type { ContainerControlBackend } from '../api/routes/container/control-backend.js';
import type { CreateLimits } from '../container/config/create-limits.js';
import type { ContainerPaths } from '../container/container-paths.js';
import { hasProcess } from '../container/container-state.js';
import type { ContainerService } from '../container/container-service.js';
import { bundleCgroupsPath, cgroupPids, containerCgroup } from '../container/stats/container-cgroup.js';
import { sampleCgroup, statsFrames } from '../container/stats/container-stats.js';
import { containerTop } from '../container/top/container-top.js';
import { verifyUpdate } from '../container/update/container-update.js';
import { decodeUpdateBody } from '../container/update/update-body.js';
import { conflict } from '../errors.js';

export function containerControlBackend(deps: { service: ContainerService; paths: ContainerPaths; limits: CreateLimits }): ContainerControlBackend {
  const { service, paths } = deps;
  const recordOf = (id: string) => service.list().find((c) => c.id === id);
  /** The cgroupsPath of a running container's current run. */
  const runningCgroup = (id: string): string | undefined => {
    const r = recordOf(id);
    return r !== undefined && hasProcess(r.state.status) ? bundleCgroupsPath(paths.bundle(id)) : undefined;
  };

  return {
    async top(ref, psArgs) {
      let id = '';
      const result = await containerTop(psArgs, async () => {
        const r = service.get(ref);
        id = r.id;
        if (r.state.status === 'restarting') throw conflict(`Container ${r.id} is restarting, wait until the container is running`);
        const cgroupsPath = runningCgroup(r.id);
        const pids = cgroupsPath === undefined ? undefined : cgroupPids(containerCgroup(cgroupsPath));
        if (pids === undefined) throw conflict(`Container ${r.id} is not running`);
        return pids;
      });
      service.publishEvent(id, 'top');
      return result;
    },
    statsTarget(ref) {
      const r = service.get(ref);
      return { id: r.id, name: r.name };
    },
    statsFrames: (id, opts) =>
      statsFrames(
        {
          sample() {
            const cgroupsPath = runningCgroup(id);
            return cgroupsPath === undefined ? undefined : sampleCgroup(cgroupsPath);
          },
          exists: () => recordOf(id) !== undefined,
        },
        opts,
      ),
    async update(ref, body, { pidsLimit }) {
      // as dockerd: the body is decoded before the container is looked up, and checked after
      const change = decodeUpdateBody(body, { pidsLimit });
      const id = service.get(ref).id;
      const warnings = verifyUpdate(change, deps.limits);
      await service.update(id, change);
      return { warnings };
    },
  };
}
