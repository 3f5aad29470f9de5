// `docker top` as dockerd 20.10 does it (daemon/top_unix.go): the ps arguments are checked, ps is
// run with them (and -q<pids>), and the rows whose PID column names one of the container's
// processes are kept, with the thread rows ("-" for a PID) that follow a kept row.
import { EngineError } from '../../errors.js';

export interface TopResult {
  Titles: string[];
  Processes: string[][];
}

/** dockerd's default when ps_args is empty. */
export const DEFAULT_PS_ARGS = '-ef';

/** Refuses renaming a column to PID (`-o user=PID`), which would fool the parser; a 500 in dockerd. */
export function validatePsArgs(psArgs: string): void {
  for (const m of psArgs.matchAll(/\s+(\S*)=\s*(PID\S*)/g)) {
    if (m[1] !== 'pid') throw new EngineError('system', `specifying "${m[1]}=${m[2]}" is not allowed`);
  }
}

/** dockerd splits on single spaces: two in a row make an empty argument, which ps refuses. */
export function splitPsArgs(psArgs: string): string[] {
  return psArgs.split(' ');
}

/** ps's own pid selection: "-q1,2,3". */
export function psPidsArg(pids: readonly number[]): string {
  return `-q${pids.join(',')}`;
}

/** Fields split on ASCII whitespace only, as dockerd's fieldsASCII. */
function fieldsAscii(line: string): string[] {
  return line.split(/[\t\n\f\r ]+/).filter((f) => f !== '');
}

export function parsePsOutput(output: string, pids: readonly number[]): TopResult {
  const lines = output.split('\n');
  const titles = fieldsAscii(lines[0] ?? '');
  const pidIndex = titles.indexOf('PID');
  if (pidIndex === -1) throw new EngineError('system', "Couldn't find PID field in ps output");
  const wanted = new Set(pids);
  const processes: string[][] = [];
  // the overhanging fields (a command's arguments) join into the last column
  const append = (fields: string[]) => processes.push([...fields.slice(0, titles.length - 1), fields.slice(titles.length - 1).join(' ')]);
  let previousKept = false;
  for (const line of lines.slice(1)) {
    if (line.length === 0) continue;
    const fields = fieldsAscii(line);
    const field = fields[pidIndex] ?? '';
    if (field === '-') {
      if (previousKept) append(fields);
      continue;
    }
    if (!/^[+-]?\d+$/.test(field)) throw new EngineError('system', `Unexpected pid '${field}': strconv.Atoi: parsing ${JSON.stringify(field)}: invalid syntax`);
    previousKept = wanted.has(Number(field));
    if (previousKept) append(fields);
  }
  return { Titles: titles, Processes: processes };
}
