// What each log driver keeps, and where, as dockerd 20.10 keeps it:
//   json-file  <container dir>/<id>-json.log, the container's LogPath; attrs from the labels, env
//              (and their -regex) and tag options (logger.Info.ExtraAttributes, ParseLogTag)
//   local      <container dir>/local-logs/container.log; LogPath is empty
//   syslog     each message sent to the server (syslog-writer.ts), and kept in the local cache
//              <container dir>/container-cached.log in local's format and rotation (dual logging:
//              what `docker logs` reads), unless cache-disabled; LogPath is empty
//   none       nothing to read; berth still keeps a small file of the output for attach to follow
//              (and so under syslog without its cache)
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { EngineError } from '../../errors.js';
import type { ContainerRecord } from '../container-record.js';
import { FileLogSink } from './file-log-sink.js';
import { jsonFileCodec, k8sFileCodec, localCodec, type LogCodec, type LogEncoder } from './log-codecs.js';
import type { LogSink } from './log-drain.js';
import { cacheEnabled, logRotationOf, type LogRotation } from './log-options.js';
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
  /** `docker logs` reads the file (not under none, nor syslog without its cache) */
  readable: boolean;
}

export function logDriverOf(record: Pick<ContainerRecord, 'hostConfig'>): string {
  return record.hostConfig.LogConfig?.Type || 'json-file';
}

/** Where a container's log is and how it reads. */
export function driverLog(containerDir: string, record: Pick<ContainerRecord, 'id' | 'hostConfig'>): DriverLog {
  const attachOnly = { file: path.join(containerDir, 'attach-output.log'), logPath: '', codec: jsonFileCodec(), readable: false };
  switch (logDriverOf(record)) {
    case 'local': {
      return { file: path.join(containerDir, 'local-logs', 'container.log'), logPath: '', codec: localCodec, readable: true };
    }
    case 'syslog':
      if (!cacheEnabled(record.hostConfig.LogConfig?.Config ?? {})) return attachOnly;
      return { file: path.join(containerDir, 'container-cached.log'), logPath: '', codec: localCodec, readable: true };
    case 'none':
      return attachOnly;
    default: {
      const file = path.join(containerDir, `${record.id}-json.log`);
      return { file, logPath: file, codec: jsonFileCodec(), readable: true };
    }
  }
}

/** conmon's own format: a terminal exec's transcript. */
export const conmonLogCodec: LogCodec = k8sFileCodec;

/** How a run's log is written: the file's encoder and rotation, and for syslog where messages also go. */
export interface LogWriting {
  encoder: LogEncoder;
  rotation: LogRotation | undefined;
  syslog?: { config: SyslogConfig; tag: string };
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
  const rotation = logRotationOf(driver, opts);
  if (driver === 'local') return { encoder: localCodec, rotation };
  return { encoder: jsonFileCodec(extraAttributes(record, opts, daemonName, logPath)), rotation };
}

/** What a run's start opens for its drain: the syslog driver's connection. */
export type LogForwarder = SyslogWriter;

/**
 * The connection to the syslog server, dialled when the run starts as dockerd's driver dials it:
 * a server that can't be reached fails the start. Undefined for the other drivers.
 */
export async function openLogForwarder(writing: LogWriting, log: Logger): Promise<SyslogWriter | undefined> {
  if (writing.syslog === undefined) return undefined;
  const { config, tag } = writing.syslog;
  try {
    return await SyslogWriter.open({ config, tag, log });
  } catch (err) {
    throw new EngineError('system', `${INIT_FAILED}${(err as Error).message}`);
  }
}

/**
 * The drain's sinks: the file, and the syslog server through `forwarder` (dialled at the start) or
 * a writer that dials with the first message (a run adopted after berthd restarted).
 */
export function logSinks(file: string, writing: LogWriting, forwarder: SyslogWriter | undefined, log: Logger): LogSink[] {
  const sinks: LogSink[] = [];
  if (writing.syslog !== undefined) sinks.push(syslogSink(forwarder ?? SyslogWriter.later({ ...writing.syslog, log })));
  sinks.push(new FileLogSink(file, writing.encoder, writing.rotation, log));
  return sinks;
}

/**
 * What dockerd's getLogger does before `docker logs` reads a container that is not running: it
 * starts the driver, so a syslog server that can't be reached (or a bad tag) fails the read, with
 * the start's message less its prefix.
 */
export async function checkLogReadable(record: ContainerRecord, log: Logger): Promise<void> {
  if (logDriverOf(record) !== 'syslog') return;
  let writer: SyslogWriter | undefined;
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

/** logger.Info.ExtraAttributes and the tag, for json-file's attrs. */
function extraAttributes(record: ContainerRecord, opts: Readonly<Record<string, string>>, daemonName: string, logPath: string): Record<string, string> {
  const extra: Record<string, string> = {};
  const labels = record.config.Labels ?? {};
  const env = new Map<string, string>();
  for (const e of record.config.Env ?? []) {
    const eq = e.indexOf('=');
    if (eq >= 0) env.set(e.slice(0, eq), e.slice(eq + 1));
  }
  for (const name of listOption(opts.labels)) if (name in labels) extra[name] = labels[name];
  for (const [k, v] of Object.entries(labels)) if (matches(opts['labels-regex'], k)) extra[k] = v;
  for (const name of listOption(opts.env)) if (env.has(name)) extra[name] = env.get(name) as string;
  for (const [k, v] of env) if (matches(opts['env-regex'], k)) extra[k] = v;
  if (opts.tag) extra.tag = logTag(opts.tag, record, daemonName, logPath);
  return extra;
}

function listOption(value: string | undefined): string[] {
  return value ? value.split(',') : [];
}

function matches(pattern: string | undefined, key: string): boolean {
  if (!pattern) return false;
  try {
    return new RegExp(pattern).test(key);
  } catch {
    throw new EngineError('system', `${INIT_FAILED}error parsing regexp: ${pattern}`);
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
