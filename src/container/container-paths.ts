// Where a container's files live. What must survive a reboot (the record, the log, the exit code
// conmon keeps, /etc files) is under the data root; what belongs to the running process (the OCI
// bundle with conmon's ctl fifo, runc's state, the attach sockets) is under the exec root, a tmpfs.
//
//   <data-root>/containers/<id>/container.json   the record
//   <data-root>/containers/<id>/<id>-json.log    the json-file driver's log (LogPath; logs/log-drivers.ts for the others)
//   <data-root>/containers/<id>/{hostname,hosts,resolv.conf}
//   <data-root>/containers/<id>/conmon/           conmon's --persist-dir: exit, oom
//   <data-root>/containers/<id>/mounts/shm/       the tmpfs of a shareable IPC namespace (dockerd's ShmPath)
//   <exec-root>/containers/<id>/                   the OCI bundle: config.json, ctl, winsz, pid files, the log fifo
//   <exec-root>/exits/<id>                         conmon's exit files, one directory for all
//   <exec-root>/runc/                              runc's --root
//   <exec-root>/s/<id>/attach                      attach sockets (short paths for sun_path)
//   <exec-root>/execs/<exec id>/                   a terminal exec's conmon files, log and exit
//   <exec-root>/secrets/<id>/                      a swarm task's secrets and configs, a tmpfs (task-files.ts)
import path from 'node:path';
import { attachSocketPath } from '../runtime/conmon.js';
import type { ContainerRecord } from './container-record.js';
import { driverLog, type DriverLog } from './logs/log-drivers.js';

export class ContainerPaths {
  readonly containersRoot: string;
  readonly bundlesRoot: string;
  readonly exitDir: string;
  readonly runcRoot: string;
  readonly runcLogDir: string;
  readonly socketDir: string;
  readonly execsDir: string;
  readonly secretsRoot: string;

  constructor(dataRoot: string, execRoot: string) {
    this.containersRoot = path.join(dataRoot, 'containers');
    this.bundlesRoot = path.join(execRoot, 'containers');
    this.exitDir = path.join(execRoot, 'exits');
    this.runcRoot = path.join(execRoot, 'runc');
    this.runcLogDir = path.join(execRoot, 'runc-logs');
    this.socketDir = path.join(execRoot, 's');
    this.execsDir = path.join(execRoot, 'execs');
    this.secretsRoot = path.join(execRoot, 'secrets');
  }

  dir(id: string): string {
    return path.join(this.containersRoot, id);
  }

  record(id: string): string {
    return path.join(this.dir(id), 'container.json');
  }

  /** The container's log as its driver keeps it. */
  log(record: Pick<ContainerRecord, 'id' | 'hostConfig'>): DriverLog {
    return driverLog(this.dir(record.id), record);
  }

  persistDir(id: string): string {
    return path.join(this.dir(id), 'conmon');
  }

  /** A shareable container's /dev/shm on the host, mounted by the spec's builder. */
  shmDir(id: string): string {
    return path.join(this.dir(id), 'mounts', 'shm');
  }

  /** Where conmon listens for the container's stdin (its --socket-dir-path layout). */
  attachSocket(id: string): string {
    return attachSocketPath(this.socketDir, id);
  }

  /** The tmpfs of a swarm task's secrets and configs. */
  secretsDir(id: string): string {
    return path.join(this.secretsRoot, id);
  }

  bundle(id: string): string {
    return path.join(this.bundlesRoot, id);
  }

  conmonPidFile(id: string): string {
    return path.join(this.bundle(id), 'conmon.pid');
  }

  containerPidFile(id: string): string {
    return path.join(this.bundle(id), 'pid');
  }

  runtimeLog(id: string): string {
    return path.join(this.bundle(id), 'runc.log');
  }
}
