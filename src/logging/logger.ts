// Structured, leveled logs on stderr: one JSON object a line (--log-format json), logrus's text as
// dockerd writes it (--log-format text), or, when no format is asked for, JSON, and colored text on a terminal.
// Credentials never reach a log line: known secret fields are censored wherever they appear.
import { pino, type Logger } from 'pino';
import type { LogFormat, LogLevel } from '../config/daemon-config.js';
import { textFormatDestination } from './text-format.js';

export type { Logger };

const REDACTED_PATHS = [
  'password',
  '*.password',
  'identitytoken',
  '*.identitytoken',
  'registrytoken',
  '*.registrytoken',
  'auth',
  '*.auth',
  'headers.authorization',
  'headers["x-registry-auth"]',
  'headers["x-registry-config"]',
];

export async function createLogger(level: LogLevel, format: LogFormat | undefined = undefined, destination: NodeJS.WritableStream = process.stderr): Promise<Logger> {
  const options = {
    level,
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  if (format === 'text') return pino(options, textFormatDestination(destination));
  if (format === undefined && destination === process.stderr && process.stderr.isTTY) {
    // pino-pretty is loaded only for a terminal, to keep start-up and memory small otherwise
    const { default: pretty } = await import('pino-pretty');
    return pino(options, pretty({ destination: 2, sync: true, colorize: true, translateTime: 'SYS:HH:MM:ss.l' }));
  }
  return pino(options, destination as pino.DestinationStream);
}
