// What each log driver keeps, and where, as dockerd 20.10 keeps it:
//   json-file  <container dir>/<id>-json.log, the container's LogPath; attrs from the labels, env
//              (and their -regex) and tag options (logger.Info.ExtraAttributes, ParseLogTag)
//   local      <container dir>/local-logs/container.log; LogPath is empty
//   syslog     each message sent to the server (syslog-writer.ts), and kept in the local cache
//              <container dir>/container-cached.log in local's format and rotation (dual logging:
//              what `docker logs` reads), unless cache-disabled; LogPath is empty
//   journald   each message sent to the journal (journald-writer.ts), which `docker logs` reads
//              (journald-reader.ts); LogPath is empty
//   none       nothing to read; berth still keeps a small file of the output for attach to follow
//              (and so under syslog without its cache, and journald)
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { EngineError } from '../../errors.js';
import { compileGoRegexp, GoRegexpError } from '../../lib/go-regexp.js';
import { MAX_DATAGRAM_BYTES } from '../../runtime/datagram-relay.js';
import type { ContainerRecord } from '../container-record.js';
import { FileLogSink } from './file-log-sink.js';
import { jsonFileCodec, k8sFileCodec, localCodec, type LogCodec, type LogEncoder } from './log-codecs.js';
import type { LogSink } from './log-drain.js';
import { cacheEnabled, logRotationOf, type LogRotation } from './log-options.js';
import { JournalEntryEncoder, sanitizeJournalKey } from './journal-native.js';
import { JournaldWriter, JournalNotEnabledError, journaldSink } from './journald-writer.js';
import { LogTagError, renderLogTag } from './log-tag.js';
import { SyslogOptionError, syslogConfigOf, type SyslogConfig } from './syslog-options.js';
import { SyslogWriter, syslogSink } from './syslog-writer.js';

const INIT_FAILED = 'failed to initialize logging driver: ';

/** logger.Info's DaemonName, as dockerd sets it (a tag's {{.DaemonName}}) */
const DAEMON_NAME = 'docker';

/** what attach follows under the none driver: enough for a reader that falls behind a little */
const NONE_ROTATION: LogRotation = { maxSizeBytes: 1024 * 1024, maxFiles: 2, compress: false };

export interface DriverLog {
  /** the file the driver writes (its rotated files beside it) */
  file: string;
  /** the container's LogPath in inspect */
  logPath: string;
  codec: LogCodec;
  /** what `docker logs` reads: the file, the journal (journald), or nothing (none, syslog without its cache) */
  reads: 'file' | 'journal' | 'nothing';
}

export function logDriverOf(record: Pick<ContainerRecord, 'hostConfig'>): string {
  return record.hostConfig.LogConfig?.Type || 'json-file';
}

/** Where a container's log is and how it reads. */
export function driverLog(containerDir: string, record: Pick<ContainerRecord, 'id' | 'hostConfig'>): DriverLog {
  const attachOnly: DriverLog = { file: path.join(containerDir, 'attach-output.log'), logPath: '', codec: jsonFileCodec(), reads: 'nothing' };
  switch (logDriverOf(record)) {
    case 'local': {
      return { file: path.join(containerDir, 'local-logs', 'container.log'), logPath: '', codec: localCodec, reads: 'file' };
    }
    case 'syslog':
      if (!cacheEnabled(record.hostConfig.LogConfig?.Config ?? {})) return attachOnly;
      return { file: path.join(containerDir, 'container-cached.log'), logPath: '', codec: localCodec, reads: 'file' };
    case 'journald':
      return { ...attachOnly, reads: 'journal' };
    case 'none':
      return attachOnly;
    default: {
      const file = path.join(containerDir, `${record.id}-json.log`);
      return { file, logPath: file, codec: jsonFileCodec(), reads: 'file' };
    }
  }
}

/** conmon's own format: a terminal exec's transcript. */
export const conmonLogCodec: LogCodec = k8sFileCodec;

/** How a run's log is written: the file's encoder and rotation, and for syslog and journald where messages also go. */
export interface LogWriting {
  encoder: LogEncoder;
  rotation: LogRotation | undefined;
  syslog?: { config: SyslogConfig; tag: string };
  /** the journal's entries of this container; made when asked, since dockerd looks for the journal before it reads the tag */
  journald?: { entries: () => JournalEntryEncoder };
}

/**
 * How a run's log is written: the encoder with the json-file driver's attrs, and the rotation; for
 * syslog, its server, format and tag. Bad options fail here, when the run starts, with dockerd's
 * "failed to initialize logging driver". `logPath` is the container's LogPath (a tag's {{.LogPath}});
 * `running` says the run has started: its options were checked then, and a unix socket's path is
 * not looked at again (one gone meanwhile is the writer's to report, not the drain's to fail on).
 */
export function logWriting(record: ContainerRecord, logPath = '', { running = false } = {}): LogWriting {
  const daemonName = DAEMON_NAME;
  const driver = logDriverOf(record);
  const opts = record.hostConfig.LogConfig?.Config ?? {};
  if (driver === 'none') return { encoder: jsonFileCodec(), rotation: NONE_ROTATION };
  if (driver === 'syslog') {
    const writing = { tag: logTag(opts.tag, record, daemonName, logPath), config: failedToInitialize(() => syslogConfigOf(opts, !running)) };
    // 20.10's cache is the local driver with its defaults: the cache-max-* options are not read
    if (cacheEnabled(opts)) return { encoder: localCodec, rotation: logRotationOf('local', {}), syslog: writing };
    return { encoder: jsonFileCodec(), rotation: NONE_ROTATION, syslog: writing };
  }
  if (driver === 'journald') return { encoder: jsonFileCodec(), rotation: NONE_ROTATION, journald: { entries: () => journalEntries(record, opts, daemonName, logPath) } };
  const rotation = logRotationOf(driver, opts);
  if (driver === 'local') return { encoder: localCodec, rotation };
  return { encoder: jsonFileCodec(jsonFileAttrs(record, opts, daemonName, logPath)), rotation };
}

/** What a run's start opens for its drain: the syslog driver's connection, or the journal's. */
export type LogForwarder = SyslogWriter | JournaldWriter;

/**
 * The connection to the syslog server, dialled when the run starts as dockerd's driver dials it
 * (a server that can't be reached fails the start), or to the journal (none on this host fails
 * it). Undefined for the other drivers.
 */
export async function openLogForwarder(writing: LogWriting, log: Logger): Promise<LogForwarder | undefined> {
  if (writing.journald !== undefined) {
    try {
      return await JournaldWriter.open(writing.journald.entries, log);
    } catch (err) {
      // the tag's and the options' errors come worded already
      if (err instanceof JournalNotEnabledError) throw new EngineError('system', `${INIT_FAILED}${err.message}`);
      throw err;
    }
  }
  if (writing.syslog === undefined) return undefined;
  try {
    return await SyslogWriter.open({ ...writing.syslog, log });
  } catch (err) {
    throw new EngineError('system', `${INIT_FAILED}${(err as Error).message}`);
  }
}

/**
 * The drain's sinks: the file, and the syslog server or the journal through `forwarder` (opened at
 * the start) or a writer that connects with the first message (a run adopted after berthd restarted).
 */
export function logSinks(file: string, writing: LogWriting, forwarder: LogForwarder | undefined, log: Logger): LogSink[] {
  const sinks: LogSink[] = [];
  if (writing.syslog !== undefined) sinks.push(syslogSink(forwarder instanceof SyslogWriter ? forwarder : SyslogWriter.later({ ...writing.syslog, log })));
  if (writing.journald !== undefined) sinks.push(journaldSink(forwarder instanceof JournaldWriter ? forwarder : JournaldWriter.later(writing.journald.entries(), log)));
  sinks.push(new FileLogSink(file, writing.encoder, writing.rotation, log));
  return sinks;
}

/**
 * What dockerd's getLogger does before `docker logs` reads a container that is not running: it
 * starts the driver, so a syslog server that can't be reached, no journal on this host (or a bad
 * tag) fails the read, with the start's message less its prefix.
 */
export async function checkLogReadable(record: ContainerRecord, log: Logger): Promise<void> {
  const driver = logDriverOf(record);
  if (driver !== 'syslog' && driver !== 'journald') return;
  let writer: LogForwarder | undefined;
  try {
    writer = await openLogForwarder(logWriting(record), log);
  } catch (err) {
    if (err instanceof EngineError) throw new EngineError('system', err.message.replace(INIT_FAILED, ''));
    throw err;
  }
  await writer?.close();
}

function failedToInitialize<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof SyslogOptionError) throw new EngineError('system', `${INIT_FAILED}${err.message}`);
    throw err;
  }
}

/** json-file's attrs: logger.Info.ExtraAttributes and the tag. */
function jsonFileAttrs(record: ContainerRecord, opts: Readonly<Record<string, string>>, daemonName: string, logPath: string): Record<string, string> {
  const extra = extraAttributes(record, opts);
  if (opts.tag) extra.tag = logTag(opts.tag, record, daemonName, logPath);
  return extra;
}

/**
 * The journald driver's fields of a container, in the order dockerd's New makes them: its own,
 * then the attributes with keys sanitised (one of the same name replaces its own). Fails when an
 * entry of them could be too large to send (journal-native.ts).
 */
function journalEntries(record: ContainerRecord, opts: Readonly<Record<string, string>>, daemonName: string, logPath: string): JournalEntryEncoder {
  const tag = logTag(opts.tag, record, daemonName, logPath);
  const entries = new JournalEntryEncoder({
    CONTAINER_ID: record.id.slice(0, 12),
    CONTAINER_ID_FULL: record.id,
    CONTAINER_NAME: record.name.replace(/^\//, ''),
    CONTAINER_TAG: tag,
    IMAGE_NAME: record.config.Image ?? '',
    SYSLOG_IDENTIFIER: tag,
    ...extraAttributes(record, opts, sanitizeJournalKey),
  });
  const sizeBytes = entries.maxEntryBytes();
  if (sizeBytes > MAX_DATAGRAM_BYTES) {
    throw new EngineError('system', `${INIT_FAILED}journald: the container's fields (its tag, and the labels and env the log options name) make entries of up to ${sizeBytes} bytes, more than the ${MAX_DATAGRAM_BYTES} berth sends the journal in one datagram`);
  }
  return entries;
}

/** logger.Info.ExtraAttributes: the labels and env the options name or match, keys through `keyMod`. */
function extraAttributes(record: ContainerRecord, opts: Readonly<Record<string, string>>, keyMod: (key: string) => string = (key) => key): Record<string, string> {
  const extra: Record<string, string> = {};
  // compiled whether or not there is anything to match, as dockerd's: a bad pattern always fails
  const labelsRegex = optionRegexp(opts['labels-regex']);
  const envRegex = optionRegexp(opts['env-regex']);
  const labels = record.config.Labels ?? {};
  const env = new Map<string, string>();
  for (const e of record.config.Env ?? []) {
    const eq = e.indexOf('=');
    if (eq >= 0) env.set(e.slice(0, eq), e.slice(eq + 1));
  }
  for (const name of listOption(opts.labels)) if (name in labels) extra[keyMod(name)] = labels[name];
  for (const [k, v] of Object.entries(labels)) if (labelsRegex?.test(k)) extra[keyMod(k)] = v;
  for (const name of listOption(opts.env)) if (env.has(name)) extra[keyMod(name)] = env.get(name) as string;
  for (const [k, v] of env) if (envRegex?.test(k)) extra[keyMod(k)] = v;
  return extra;
}

function listOption(value: string | undefined): string[] {
  return value ? value.split(',') : [];
}

function optionRegexp(pattern: string | undefined): RegExp | undefined {
  if (!pattern) return undefined;
  try {
    return compileGoRegexp(pattern);
  } catch (err) {
    if (err instanceof GoRegexpError) throw new EngineError('system', `${INIT_FAILED}${err.message}`);
    throw err;
  }
}

/** The tag option's template over logger.Info (loggerutils.ParseLogTag). */
function logTag(template: string | undefined, record: ContainerRecord, daemonName: string, logPath: string): string {
  try {
    return renderLogTag(template, {
      containerId: record.id,
      containerName: record.name,
      entrypoint: record.path,
      args: record.args,
      imageId: record.image,
      imageName: record.config.Image ?? '',
      daemonName,
      logPath,
      hostname: os.hostname(),
    });
  } catch (err) {
    if (err instanceof LogTagError) throw new EngineError('system', `${INIT_FAILED}${err.message}`);
    throw err;
  }
}
