// Extended attributes read in bulk. Node has no xattr API, so getfattr is spawned, once for a whole
// tree (-R) or for a batch of files, rather than once a file. Its dump names each file on a
// `# file: PATH` line and each attribute as `NAME=0xHEX`; in both, getfattr writes a backslash, a
// newline, a carriage return (and `=` in a name) as a three-digit octal escape, other bytes as they are.
import { EngineError } from '../errors.js';
import { CommandError, runCommand } from '../runtime/child-process.js';
import { argumentPath, type BytePath } from './byte-path.js';

/** attribute name → value */
export type Xattrs = Map<string, Buffer>;

/** bytes of file arguments per getfattr run, well under the kernel's limit for a command line */
const ARGUMENT_BUDGET = 96 * 1024;
/** a walk of a large tree on a slow disk */
const GETFATTR_TIMEOUT_MS = 10 * 60_000;

/**
 * The attributes matching `pattern` (a getfattr -m regular expression; '-' for all) of `root` and
 * everything under it, symbolic links never followed, keyed by byte path. Files with none are absent.
 */
export async function dumpTreeXattrs(root: BytePath, pattern: string): Promise<Map<BytePath, Xattrs>> {
  return parseGetfattrDump(await getfattr(['-R', '-P', '-h', '--absolute-names', '-d', '-m', pattern, '-e', 'hex', '--', argument(root)]));
}

/** The attributes matching `pattern` of each of `files` (never followed), keyed by byte path; files with none are absent. */
export async function readXattrs(files: BytePath[], pattern: string): Promise<Map<BytePath, Xattrs>> {
  const found = new Map<BytePath, Xattrs>();
  let batch: string[] = [];
  let bytes = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const dump = await getfattr(['-h', '--absolute-names', '-d', '-m', pattern, '-e', 'hex', '--', ...batch]);
    for (const [file, xattrs] of parseGetfattrDump(dump)) found.set(file, xattrs);
    batch = [];
    bytes = 0;
  };
  for (const file of files) {
    const arg = argument(file);
    const size = Buffer.byteLength(arg) + 1;
    if (bytes + size > ARGUMENT_BUDGET) await flush();
    batch.push(arg);
    bytes += size;
  }
  await flush();
  return found;
}

/** Parses getfattr's `-d -e hex` dump (read as latin1) into byte paths and raw values. */
export function parseGetfattrDump(dump: string): Map<BytePath, Xattrs> {
  const files = new Map<BytePath, Xattrs>();
  let current: Xattrs | undefined;
  for (const line of dump.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('# file: ')) {
      current = new Map();
      files.set(unescape(line.slice('# file: '.length)), current);
      continue;
    }
    if (current === undefined) throw new EngineError('system', `cannot read getfattr's output: ${JSON.stringify(line)}`);
    const eq = line.indexOf('=');
    const name = unescape(eq === -1 ? line : line.slice(0, eq));
    const value = eq === -1 ? '' : line.slice(eq + 1);
    if (value !== '' && !/^0x(?:[0-9a-fA-F]{2})*$/.test(value)) throw new EngineError('system', `cannot read getfattr's value of ${name}: ${JSON.stringify(value)}`);
    current.set(name, Buffer.from(value.slice(2), 'hex'));
  }
  return files;
}

function unescape(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_match, octal: string) => String.fromCharCode(parseInt(octal, 8) & 0xff));
}

function argument(file: BytePath): string {
  const arg = argumentPath(file);
  // Node passes arguments as UTF-8; berth's layers hold UTF-8 names only (the tar reader decodes them so)
  if (arg === undefined) throw new EngineError('system', `cannot read the extended attributes of ${JSON.stringify(file)}: its name is not UTF-8`);
  return arg;
}

async function getfattr(args: string[]): Promise<string> {
  try {
    const r = await runCommand('getfattr', args, {
      timeoutMs: GETFATTR_TIMEOUT_MS,
      maxBufferBytes: 1024 * 1024 * 1024,
      env: { ...process.env, LC_ALL: 'C' },
      allowExitCodes: [1],
    });
    // getfattr exits 1 when a file went away during a walk (a running container's temporary
    // files): what it read of the others is still good
    const problems = r.stderr.split('\n').filter((line) => line !== '' && !/No such file or directory$/.test(line));
    if (r.exitCode === 1 && problems.length > 0) throw new CommandError('getfattr', problems[0], { exitCode: 1, signal: null, stderr: r.stderr, timedOut: false });
    return r.stdout.toString('latin1');
  } catch (err) {
    throw new EngineError('system', `cannot read extended attributes: ${(err as Error).message}`, { cause: err });
  }
}
