// Other containers as a `container:<id>` network, IPC or PID mode joins them: their init's pid, their
// /dev/shm and the directory whose hostname, hosts and resolv.conf a container on their network shares.
import type { ContainerPaths } from './container-paths.js';
import { hasProcess } from './container-state.js';
import type { ContainerStore } from './container-store.js';
import type { ContainerLookup } from './spec/namespaces.js';

export function joinableContainers(store: ContainerStore, paths: ContainerPaths): ContainerLookup {
  return (ref) => {
    const r = store.find(ref);
    if (r === undefined) return undefined;
    const status = r.state.status;
    return { id: r.id, pid: r.state.pid, running: hasProcess(status), restarting: status === 'restarting', shmPath: paths.shmDir(r.id), dir: paths.dir(r.id) };
  };
}
