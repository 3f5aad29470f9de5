// The container's namespaces from HostConfig's modes, as moby's WithNamespaces decides them (v20.10
// daemon/oci_linux.go): host (none of its own), private, or another container's (joined through
// /proc/<pid>/ns/<type>). Networks: `none`, `default` and `bridge` (and, for now, any network name)
// give a namespace of the container's own with only loopback in it. /dev/shm follows IpcMode.
import { conflict, invalidParameter, notFound, EngineError } from '../../errors.js';
import type { ContainerSpecInput, NamespaceMode, NamespaceType } from '../../runtime/oci-spec.js';
import type { HostConfig } from '../config/types.js';
import { notRunningError, restartingError } from '../container-state.js';

/** What a mode `container:<id>` needs of the other container. */
export interface JoinableContainer {
  id: string;
  /** its init's pid; 0 when not running */
  pid: number;
  running: boolean;
  restarting?: boolean;
  /** its /dev/shm directory on the host (mounted when its IpcMode is shareable) */
  shmPath?: string;
  /** its own directory on the host, whose hostname, hosts and resolv.conf a container on its network shares */
  dir?: string;
}

/** Finds a container by ID, ID prefix or name; undefined when there is none. */
export type ContainerLookup = (idOrName: string) => JoinableContainer | undefined;

export interface ContainerNamespaces {
  namespaces: Partial<Record<NamespaceType, NamespaceMode>>;
  shm: NonNullable<ContainerSpecInput['shm']>;
}

function lookup(find: ContainerLookup, idOrName: string): JoinableContainer {
  const c = find(idOrName);
  if (!c) throw notFound(`No such container: ${idOrName}`);
  return c;
}

/** dockerd's refusal to join a container that is not running, or restarting, in dockerd's words. */
function notRunning(c: JoinableContainer): EngineError | undefined {
  if (!c.running) return notRunningError(c.id);
  if (c.restarting) return restartingError(c.id);
  return undefined;
}

const nsPath = (pid: number, ns: string): NamespaceMode => ({ path: `/proc/${pid}/ns/${ns}` });

/**
 * The namespaces and /dev/shm of container `id`. `shmDir` is this container's own shm directory
 * (mounted by the caller with mountShm when IpcMode is shareable).
 */
export function containerNamespaces(id: string, hc: HostConfig, find: ContainerLookup, shmDir: string, netnsPath?: string): ContainerNamespaces {
  const namespaces: Partial<Record<NamespaceType, NamespaceMode>> = {};
  const sizeBytes = hc.ShmSize ?? 0;

  const net = hc.NetworkMode ?? '';
  if (net === 'host') namespaces.network = 'host';
  else if (net.startsWith('container:')) {
    const other = net.slice('container:'.length);
    const c = lookup(find, other);
    if (c.id === id) throw new EngineError('system', 'cannot join own network');
    if (!c.running) throw conflict(`cannot join network of a non running container: ${other}`);
    if (c.restarting) throw restartingError(other);
    namespaces.network = nsPath(c.pid, 'net');
  } else namespaces.network = netnsPath === undefined ? 'private' : { path: netnsPath };

  const ipc = hc.IpcMode ?? '';
  let shm: ContainerNamespaces['shm'];
  if (ipc === 'host') {
    namespaces.ipc = 'host';
    shm = { sizeBytes };
  } else if (ipc.startsWith('container:')) {
    const other = ipc.slice('container:'.length);
    const prefix = `invalid IPC mode: ${ipc}: can't join IPC of container ${other}`;
    const c = find(other);
    if (!c) throw invalidParameter(`${prefix}: No such container: ${other}`);
    const why = notRunning(c);
    if (why) throw invalidParameter(`${prefix}: ${why.message}`);
    if (!c.shmPath) throw invalidParameter(`${prefix}: non-shareable IPC (hint: use IpcMode:shareable for the donor container)`);
    namespaces.ipc = nsPath(c.pid, 'ipc');
    shm = { hostPath: c.shmPath };
  } else if (ipc === 'none') {
    namespaces.ipc = 'private';
    shm = 'none';
  } else if (ipc === 'shareable' || ipc === '') {
    // an empty mode is a container of an old daemon, whose default was shareable
    namespaces.ipc = 'private';
    shm = { hostPath: shmDir };
  } else if (ipc === 'private') {
    namespaces.ipc = 'private';
    shm = { sizeBytes };
  } else throw invalidParameter(`invalid IPC mode: ${ipc}`);

  const pid = hc.PidMode ?? '';
  if (pid === 'host') namespaces.pid = 'host';
  else if (pid.startsWith('container:')) {
    const other = pid.slice('container:'.length);
    const c = find(other);
    if (!c) throw notFound(`cannot join PID of a non running container: ${other}: No such container: ${other}`);
    const why = notRunning(c);
    if (why) throw why;
    namespaces.pid = nsPath(c.pid, 'pid');
  } else if (pid === '') namespaces.pid = 'private';
  else throw invalidParameter(`invalid PID mode: ${pid}`);

  const uts = hc.UTSMode ?? '';
  if (uts === 'host') namespaces.uts = 'host';
  else if (uts === '') namespaces.uts = 'private';
  else throw invalidParameter(`invalid UTS mode: ${uts}`);

  const cgroupns = hc.CgroupnsMode ?? '';
  if (cgroupns === 'private') namespaces.cgroup = 'private';
  else if (cgroupns === 'host' || cgroupns === '') namespaces.cgroup = 'host';
  else throw invalidParameter(`invalid cgroup namespace mode: ${String(cgroupns)}`);

  return { namespaces, shm };
}

/** Whether the container runs its own init in a pid namespace of its own (where Init applies). */
export function hasPrivatePidNamespace(hc: HostConfig): boolean {
  return (hc.PidMode ?? '') === '';
}
