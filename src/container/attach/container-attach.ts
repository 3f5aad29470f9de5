// POST /containers/{id}/attach and its WebSocket form, as the container area serves them: the
// detach keys and the container are checked first (400, 404, and 409 for a paused or restarting
// container, in dockerd's words); the session then attaches, publishing attach, and detach when
// the client detaches.
import type { FrameSink, StreamSession } from '../../lib/stream-session.js';
import { conflict } from '../../errors.js';
import type { ContainerEvents } from '../container-events.js';
import type { ContainerPaths } from '../container-paths.js';
import type { ContainerService } from '../container-service.js';
import { runAttach } from './attach-session.js';
import { parseDetachKeys } from './detach-keys.js';

export interface AttachRequest {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  stream: boolean;
  logs: boolean;
  /** as the client gave them ("ctrl-p,ctrl-q"); the default when undefined */
  detachKeys: string | undefined;
}

/** The client's framing follows the container's TTY (raw, or stdcopy frames). */
export interface AttachSession extends StreamSession<FrameSink> {
  tty: boolean;
}

export interface AttachDeps {
  service: ContainerService;
  paths: ContainerPaths;
  events: ContainerEvents;
}

export function attachContainer(deps: AttachDeps, ref: string, req: AttachRequest): AttachSession {
  const detachKeys = parseDetachKeys(req.detachKeys);
  const record = deps.service.get(ref);
  if (record.state.status === 'paused') throw conflict('You cannot attach to a paused container, unpause it first');
  if (record.state.status === 'restarting') throw conflict('You cannot attach to a restarting container, wait until it is running');
  const id = record.id;
  const tty = record.config.Tty === true;
  // taken now: a start that comes between the check and the session is the one attached to
  const container = {
    log: deps.paths.log(record),
    tty,
    attachSocketPath: deps.paths.attachSocket(id),
    ended: deps.service.currentOrNextRunEnded(id),
    started: deps.service.runStarted(id),
    stdinOpen: record.config.OpenStdin === true,
    stdinOnce: record.config.StdinOnce === true,
  };
  const opts = { stdin: req.stdin, stdout: req.stdout, stderr: req.stderr, stream: req.stream, logs: req.logs, detachKeys };
  return {
    tty,
    async run({ out, input, signal }) {
      deps.events.publishById(id, 'attach');
      const outcome = await runAttach({ container, opts, out, input, signal });
      if (outcome === 'detached') deps.events.publishById(id, 'detach');
    },
  };
}
