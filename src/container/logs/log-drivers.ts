// What each log driver keeps, and where, as dockerd 20.10 keeps it:
//   json-file  <container dir>/<id>-json.log, the container's LogPath; attrs from the labels, env
//              (and their -regex) and tag options (logger.Info.ExtraAttributes, ParseLogTag)
//   local      <container dir>/local-logs/container.log; LogPath is empty
//   none       nothing to read; berth still keeps a small file of the output for attach to follow
import path from 'node:path';
import { EngineError } from '../../errors.js';
import type { ContainerRecord } from '../container-record.js';
import { jsonFileCodec, k8sFileCodec, localCodec, type LogCodec, type LogEncoder } from './log-codecs.js';
import { logRotationOf, type LogRotation } from './log-options.js';

/** what attach follows under the none driver: enough for a reader that falls behind a little */
const NONE_ROTATION: LogRotation = { maxSizeBytes: 1024 * 1024, maxFiles: 2, compress: false };

export interface DriverLog {
  /** the file the driver writes (its rotated files beside it) */
  file: string;
  /** the container's LogPath in inspect */
  logPath: string;
  codec: LogCodec;
}

export function logDriverOf(record: Pick<ContainerRecord, 'hostConfig'>): string {
  return record.hostConfig.LogConfig?.Type || 'json-file';
}

/** Where a container's log is and how it reads. */
export function driverLog(containerDir: string, record: Pick<ContainerRecord, 'id' | 'hostConfig'>): DriverLog {
  switch (logDriverOf(record)) {
    case 'local': {
      return { file: path.join(containerDir, 'local-logs', 'container.log'), logPath: '', codec: localCodec };
    }
    case 'none':
      return { file: path.join(containerDir, 'attach-output.log'), logPath: '', codec: jsonFileCodec() };
    default: {
      const file = path.join(containerDir, `${record.id}-json.log`);
      return { file, logPath: file, codec: jsonFileCodec() };
    }
  }
}

/** conmon's own format: a terminal exec's transcript. */
export const conmonLogCodec: LogCodec = k8sFileCodec;

/**
 * How a run's log is written: the encoder with the json-file driver's attrs, and the rotation. Bad
 * options fail here, when the run starts, with dockerd's "failed to initialize logging driver".
 */
export function logWriting(record: ContainerRecord, daemonName = 'docker'): { encoder: LogEncoder; rotation: LogRotation | undefined } {
  const driver = logDriverOf(record);
  const opts = record.hostConfig.LogConfig?.Config ?? {};
  if (driver === 'none') return { encoder: jsonFileCodec(), rotation: NONE_ROTATION };
  const rotation = logRotationOf(driver, opts);
  if (driver === 'local') return { encoder: localCodec, rotation };
  return { encoder: jsonFileCodec(extraAttributes(record, opts, daemonName)), rotation };
}

/** logger.Info.ExtraAttributes and the tag, for json-file's attrs. */
function extraAttributes(record: ContainerRecord, opts: Readonly<Record<string, string>>, daemonName: string): Record<string, string> {
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
  if (opts.tag) extra.tag = logTag(opts.tag, record, daemonName);
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
    throw new EngineError('system', `failed to initialize logging driver: error parsing regexp: ${pattern}`);
  }
}

/** The tag option's template over logger.Info's fields (loggerutils.ParseLogTag). */
function logTag(template: string, record: ContainerRecord, daemonName: string): string {
  const imageId = record.image.replace(/^sha256:/, '');
  const fields: Record<string, string> = {
    ID: record.id.slice(0, 12),
    FullID: record.id,
    Name: record.name.replace(/^\//, ''),
    ImageID: imageId.slice(0, 12),
    ImageFullID: imageId,
    ImageName: record.config.Image ?? '',
    DaemonName: daemonName,
    Command: [record.path, ...record.args].join(' '),
  };
  return template.replace(/\{\{\s*\.(\w+)\s*\}\}/g, (_m, name: string) => {
    if (!(name in fields)) throw new EngineError('system', `failed to initialize logging driver: template: log-tag:1:2: executing "log-tag" at <.${name}>: can't evaluate field ${name} in type *logger.Info`);
    return fields[name];
  });
}
