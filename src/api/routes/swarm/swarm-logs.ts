// GET /services/{id}/logs and /tasks/{id}/logs, as dockerd 20.10's swarmLogs: a stream must be
// chosen (dockerd's plain error, a 500), then the backend checks the service or task and the
// options (its errors are statuses), and the messages go out as WriteLogStream writes them, each
// with its task's context among the details (the CLI needs it to name the task); multiplexed unless
// the tasks have a TTY. No Content-Type, as dockerd. A failure once the stream has begun goes
// in-band.
import { EngineError } from '../../../errors.js';
import type { LogMessage, LogSelector } from '../../../swarm/manager/log-broker.js';
import { queryBool } from '../../query.js';
import type { Handler } from '../../router.js';
import { LogStreamWriter } from '../../streams/log-stream-writer.js';
import { MuxWriter, StreamClosedError } from '../../streams/mux-writer.js';
import type { ServiceBackend } from './backend.js';

export function swarmLogs(services: ServiceBackend, selectorOf: (id: string) => LogSelector): Handler {
  return async (ctx) => {
    const stdout = queryBool(ctx.query, 'stdout');
    const stderr = queryBool(ctx.query, 'stderr');
    if (!stdout && !stderr) throw new EngineError('system', 'Bad parameters: you must choose at least one stream');
    const session = await services.logs(selectorOf(ctx.params.id!), { stdout, stderr, follow: queryBool(ctx.query, 'follow'), since: ctx.query.get('since'), tail: ctx.query.get('tail') });
    const writer = new LogStreamWriter(new MuxWriter(ctx.res, { tty: session.tty }), { details: queryBool(ctx.query, 'details'), timestamps: queryBool(ctx.query, 'timestamps') });
    ctx.res.writeHead(200);
    ctx.res.flushHeaders();
    try {
      await session.run({ out: { write: (m) => writer.write({ stream: m.stream, timeNs: m.timeNs, attrs: contextOf(m), data: m.data }) }, signal: ctx.signal });
    } catch (err) {
      if (err instanceof StreamClosedError || ctx.signal.aborted) throw err;
      await writer.error((err as Error).message);
      // anything but the engine's own errors is a bug: the server logs it
      if (!(err instanceof EngineError)) throw err;
    }
    ctx.res.end();
  };
}

/** dockerd's context details: the node, service and task of the message. */
function contextOf(m: LogMessage): Record<string, string> {
  return { 'com.docker.swarm.node.id': m.nodeId, 'com.docker.swarm.service.id': m.serviceId, 'com.docker.swarm.task.id': m.taskId };
}
