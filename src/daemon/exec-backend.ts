// The Exec routes' backend: the exec service, with the create body decoded on the way in.
import type { ExecBackend } from '../api/routes/exec/backend.js';
import { decodeExecConfig } from '../container/exec/exec-config.js';
import type { ExecService } from '../container/exec/exec-service.js';

export function execBackend(execs: ExecService): ExecBackend {
  return {
    create: (containerRef, body) => execs.create(containerRef, decodeExecConfig(body)),
    inspect: (id) => execs.inspect(id),
    claim: (id) => execs.claim(id),
    launch: (instance, session) => execs.launch(instance, session),
    resize: (id, height, width) => execs.resize(id, height, width),
  };
}
