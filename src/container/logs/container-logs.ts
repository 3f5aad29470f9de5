// GET /containers/{id}/logs as the container area serves it: the streams asked for and the
// container are checked first (400, 404), then whether its log can be read (openContainerLog), then
// the times (400); the session then reads the log: to its end for a stopped container, following a
// running one until its run ends. With timestamps, each record goes with its time (UTC, nine
// digits) and a space.
import { invalidParameter, notImplemented } from '../../errors.js';
import type { FrameSink, StreamSession } from '../../lib/stream-session.js';
import { parseTimestampNanos } from '../../lib/timestamp.js';
import type { ContainerPaths } from '../container-paths.js';
import type { ContainerRecord } from '../container-record.js';
import type { ContainerService } from '../container-service.js';
import { hasProcess } from '../container-state.js';
import type { Logger } from 'pino';
import { readContainerLog, type LogEntry } from './container-log.js';
import { readJournal, type JournalReadOptions } from './journald-reader.js';
import { checkLogReadable } from './log-drivers.js';

/** the most a frame of gathered records holds */
const FRAME_BYTES = 64 * 1024;

export interface LogsRequest {
  stdout: boolean;
  stderr: boolean;
  /** seconds since the epoch, with an optional fraction, as the query gives them */
  since?: string;
  until?: string;
  /** the last this many records; all when undefined */
  tail?: number;
  follow: boolean;
  timestamps: boolean;
}

/** The client's framing follows the container's TTY (raw, or stdcopy frames). */
export interface LogsSession extends StreamSession<FrameSink> {
  tty: boolean;
}

export async function containerLogs(deps: { service: ContainerService; paths: ContainerPaths; log: Logger }, ref: string, req: LogsRequest): Promise<LogsSession> {
  if (!req.stdout && !req.stderr) throw invalidParameter('Bad parameters: you must choose at least one stream');
  const record = deps.service.get(ref);
  const entries = await openContainerLog(deps, record);
  const sinceNs = parseTimestampNanos('since', req.since ?? null);
  const untilNs = parseTimestampNanos('until', req.until ?? null);
  const id = record.id;
  // a stopped container's log is read to its end, as dockerd
  const follow = req.follow && hasProcess(record.state.status);
  const ended = deps.service.currentOrNextRunEnded(id);
  return {
    tty: record.config.Tty === true,
    async run({ out, signal }) {
      // consecutive records of one stream go out as one frame: a frame per line is most of the
      // time of a long log (the client demultiplexes frames of any size)
      let pending: { stream: LogEntry['stream']; parts: Buffer[]; sizeBytes: number } | undefined;
      const flush = async () => {
        const sending = pending;
        pending = undefined;
        if (sending !== undefined) await out.write(sending.stream, Buffer.concat(sending.parts, sending.sizeBytes));
      };
      for await (const entry of entries({ stdout: req.stdout, stderr: req.stderr, sinceNs, untilNs, tail: req.tail, follow, ended, signal, onCaughtUp: flush })) {
        const data = req.timestamps ? Buffer.concat([Buffer.from(`${entry.time} `), entry.data]) : entry.data;
        if (pending !== undefined && (pending.stream !== entry.stream || pending.sizeBytes + data.length > FRAME_BYTES)) await flush();
        pending ??= { stream: entry.stream, parts: [], sizeBytes: 0 };
        pending.parts.push(data);
        pending.sizeBytes += data.length;
      }
      await flush();
    },
  };
}

/**
 * A container's log, to read as its driver keeps it (the file, or the journal for journald): 501
 * when there is none to read, as dockerd (a `none` driver: the log is still kept, attach follows
 * it; syslog without its cache); for a container that is not running, the driver started first as
 * dockerd's getLogger starts it (a syslog server that can't be reached, or no journal on this
 * host, is a 500).
 */
export async function openContainerLog(deps: { paths: ContainerPaths; log: Logger }, record: ContainerRecord): Promise<(opts: JournalReadOptions) => AsyncGenerator<LogEntry>> {
  const cannotRead = () => notImplemented('configured logging driver does not support reading');
  if (record.hostConfig.LogConfig?.Type === 'none') throw cannotRead();
  if (!hasProcess(record.state.status)) await checkLogReadable(record, deps.log);
  const log = deps.paths.log(record);
  if (log.reads === 'nothing') throw cannotRead();
  return (opts) => (log.reads === 'journal' ? readJournal(record.id, opts) : readContainerLog(log.file, log.codec, opts));
}
