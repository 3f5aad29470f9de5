// RUN --mount's value as buildkit v0.8 reads it (instructions/commands_runmount.go). The classic
// builder refuses RUN --mount when it runs the step, but a malformed value fails the parse first.
import { parseGoBool } from '../../lib/go-bool.js';
import { DockerfileError } from './dockerfile-error.js';
import { readCsvRecord } from './go-csv-record.js';
import { goQuote } from './go-quote.js';

export interface RunMount {
  type: string;
  from: string;
  source: string;
  target: string;
  readOnly: boolean;
  cacheId: string;
  cacheSharing: string;
  required: boolean;
  mode?: number;
  uid?: number;
  gid?: number;
}

const MOUNT_TYPES = new Set(['bind', 'cache', 'tmpfs', 'secret', 'ssh']);
const SHARING = new Set(['shared', 'private', 'locked']);

export function parseRunMount(value: string): RunMount {
  let fields: string[];
  try {
    fields = readCsvRecord(value);
  } catch (err) {
    throw new DockerfileError(`failed to parse csv mounts: ${(err as Error).message}`);
  }
  const m: RunMount = { type: 'bind', from: '', source: '', target: '', readOnly: false, cacheId: '', cacheSharing: '', required: false };
  let roAuto = true;
  const secretOrSsh = () => m.type === 'secret' || m.type === 'ssh';
  for (const field of fields) {
    const eq = field.indexOf('=');
    const key = (eq < 0 ? field : field.slice(0, eq)).toLowerCase();
    if (eq < 0) {
      if (key === 'readonly' || key === 'ro' || key === 'readwrite' || key === 'rw') {
        m.readOnly = key === 'readonly' || key === 'ro';
        roAuto = false;
        continue;
      }
      if (key === 'required') {
        if (!secretOrSsh()) throw new DockerfileError(`unexpected key '${key}' for mount type '${m.type}'`);
        m.required = true;
        continue;
      }
      throw new DockerfileError(`invalid field '${field}' must be a key=value pair`);
    }
    const v = field.slice(eq + 1);
    switch (key) {
      case 'type':
        if (!MOUNT_TYPES.has(v.toLowerCase())) throw new DockerfileError(`unsupported mount type ${goQuote(v)}`);
        m.type = v.toLowerCase();
        break;
      case 'from':
        m.from = v;
        break;
      case 'source':
      case 'src':
        m.source = v;
        break;
      case 'target':
      case 'dst':
      case 'destination':
        m.target = v;
        break;
      case 'readonly':
      case 'ro':
        m.readOnly = parseBool(key, v);
        roAuto = false;
        break;
      case 'readwrite':
      case 'rw':
        m.readOnly = !parseBool(key, v);
        roAuto = false;
        break;
      case 'required':
        if (!secretOrSsh()) throw new DockerfileError(`unexpected key '${key}' for mount type '${m.type}'`);
        m.required = parseBool(key, v);
        break;
      case 'id':
        m.cacheId = v;
        break;
      case 'sharing':
        if (!SHARING.has(v.toLowerCase())) throw new DockerfileError(`unsupported sharing value ${goQuote(v)}`);
        m.cacheSharing = v.toLowerCase();
        break;
      case 'mode':
        m.mode = parseUint32(v, /^[0-7]+$/, 8, `invalid value ${v} for mode`);
        break;
      case 'uid':
        m.uid = parseUint32(v, /^[0-9]+$/, 10, `invalid value ${v} for uid`);
        break;
      case 'gid':
        m.gid = parseUint32(v, /^[0-9]+$/, 10, `invalid value ${v} for gid`);
        break;
      default:
        throw new DockerfileError(`unexpected key '${key}' in '${field}'`);
    }
  }
  const fileInfoAllowed = m.type === 'secret' || m.type === 'ssh' || m.type === 'cache';
  for (const what of ['mode', 'uid', 'gid'] as const) {
    if (m[what] !== undefined && !fileInfoAllowed) throw new DockerfileError(`${what} not allowed for ${goQuote(m.type)} type mounts`);
  }
  if (roAuto) m.readOnly = m.type !== 'cache' && m.type !== 'tmpfs';
  if (m.cacheSharing !== '' && m.type !== 'cache') throw new DockerfileError(`invalid cache sharing set for ${m.type} mount`);
  // (buildkit's "secret mount should not define sharing" never shows: the check above comes first)
  if (m.type === 'secret') {
    if (m.from !== '') throw new DockerfileError('secret mount should not have a from');
    if (m.source === '' && m.target === '' && m.cacheId === '') throw new DockerfileError('invalid secret mount. one of source, target required');
    if (m.source !== '' && m.cacheId !== '') throw new DockerfileError("both source and id can't be set");
  }
  return m;
}

// strconv.ParseBool
function parseBool(key: string, v: string): boolean {
  const parsed = parseGoBool(v);
  if (parsed === undefined) throw new DockerfileError(`invalid value for ${key}: ${v}`);
  return parsed;
}

// strconv.ParseUint(v, base, 32)
function parseUint32(v: string, digits: RegExp, base: number, message: string): number {
  const n = digits.test(v) ? parseInt(v, base) : NaN;
  if (!(n <= 0xffffffff)) throw new DockerfileError(message);
  return n;
}
