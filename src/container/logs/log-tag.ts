// The `tag` log option: a Go text/template over dockerd's logger.Info (loggerutils.ParseLogTag,
// daemon/logger/templates). What berth takes of text/template is what a tag needs: text, actions
// ({{ }}, with {{- -}} trimming), pipelines of commands separated by |, the fields and methods of
// logger.Info, string and number literals, and the functions dockerd gives the template (json,
// split, join, title, lower, upper, pad, truncate). Anything else fails as Go's parser or executor
// words it, so that a template dockerd refuses is refused here too.

/** logger.Info as a tag template sees it. */
export interface LogTagInfo {
  containerId: string;
  /** with its leading slash */
  containerName: string;
  /** the process: Path */
  entrypoint: string;
  args: readonly string[];
  /** "sha256:..." */
  imageId: string;
  imageName: string;
  daemonName: string;
  /** the driver's file, "" for drivers that have none */
  logPath: string;
  hostname: string;
}

type Value = string | readonly string[] | number;

/** logger.Info's fields and methods that give strings (the ones a tag can print). */
function infoFields(info: LogTagInfo): Record<string, string> {
  const name = info.containerName.replace(/^\//, '');
  return {
    ID: info.containerId.slice(0, 12),
    FullID: info.containerId,
    Name: name,
    ImageID: info.imageId.slice(0, 12),
    ImageFullID: info.imageId,
    ImageName: info.imageName,
    DaemonName: info.daemonName,
    Command: [info.entrypoint, ...info.args].join(' '),
    Hostname: info.hostname,
    ContainerID: info.containerId,
    ContainerName: info.containerName,
    ContainerEntrypoint: info.entrypoint,
    ContainerImageID: info.imageId,
    ContainerImageName: info.imageName,
    LogPath: info.logPath,
  };
}

const FUNCTIONS: Record<string, { arity: number; call: (args: Value[]) => Value }> = {
  json: { arity: 1, call: ([v]) => JSON.stringify(v) },
  split: { arity: 2, call: ([s, sep]) => goSplit(str(s), str(sep)) },
  join: { arity: 2, call: ([list, sep]) => (Array.isArray(list) ? list : [str(list)]).join(str(sep)) },
  title: { arity: 1, call: ([s]) => str(s).replace(/(^|[^\p{L}\p{N}_'])(\p{L})/gu, (_m, before: string, c: string) => before + c.toUpperCase()) },
  lower: { arity: 1, call: ([s]) => str(s).toLowerCase() },
  upper: { arity: 1, call: ([s]) => str(s).toUpperCase() },
  pad: { arity: 3, call: ([s, prefix, suffix]) => (str(s) === '' ? '' : ' '.repeat(num(prefix)) + str(s) + ' '.repeat(num(suffix))) },
  truncate: { arity: 2, call: ([s, n]) => (str(s).length < num(n) ? str(s) : str(s).slice(0, num(n))) },
};

/** A template's failure, worded as Go's (the caller adds dockerd's prefix). */
export class LogTagError extends Error {}

/** The tag the template makes of the container's info; `{{.ID}}` when the option is empty. */
export function renderLogTag(template: string | undefined, info: LogTagInfo): string {
  const text = template || '{{.ID}}';
  const fields = infoFields(info);
  let out = '';
  let pos = 0;
  while (pos < text.length) {
    const open = text.indexOf('{{', pos);
    if (open < 0) {
      out += text.slice(pos);
      break;
    }
    let literal = text.slice(pos, open);
    let start = open + 2;
    if (/^- /.test(text.slice(start))) {
      literal = literal.replace(/\s+$/, '');
      start += 2;
    }
    out += literal;
    const close = text.indexOf('}}', start);
    if (close < 0) throw new LogTagError(`template: log-tag:${lineOf(text, open)}: unclosed action`);
    let end = close;
    let trimAfter = false;
    if (text.slice(start, close).endsWith(' -')) {
      end = close - 2;
      trimAfter = true;
    }
    out += printed(pipeline(text, start, end, fields));
    pos = close + 2;
    if (trimAfter) while (pos < text.length && /\s/.test(text[pos])) pos++;
  }
  return out;
}

/** The value of the pipeline in text[start, end): each command's value is the last argument of the next. */
function pipeline(text: string, start: number, end: number, fields: Record<string, string>): Value {
  const line = lineOf(text, start);
  const commands = splitCommands(text, start, end, line);
  if (commands.length === 0) throw new LogTagError(`template: log-tag:${line}: missing value for command`);
  let value: Value | undefined;
  for (const command of commands) {
    const [head, ...rest] = command;
    const operand = (t: Token): Value => {
      if (t.kind === 'field') {
        if (!(t.text.slice(1) in fields)) {
          throw new LogTagError(`template: log-tag:${line}:${t.at - lineStart(text, t.at)}: executing "log-tag" at <${t.text}>: can't evaluate field ${t.text.slice(1)} in type *logger.Info`);
        }
        return fields[t.text.slice(1)];
      }
      if (t.kind === 'string' || t.kind === 'number') return t.value as Value;
      throw new LogTagError(`template: log-tag:${line}: function "${t.text}" not defined`);
    };
    if (head.kind === 'ident') {
      const fn = FUNCTIONS[head.text];
      if (fn === undefined) throw new LogTagError(`template: log-tag:${line}: function "${head.text}" not defined`);
      const args = rest.map(operand);
      if (value !== undefined) args.push(value);
      if (args.length !== fn.arity) {
        throw new LogTagError(`template: log-tag:${line}:${head.at - lineStart(text, head.at)}: executing "log-tag" at <${head.text}>: wrong number of args for ${head.text}: want ${fn.arity} got ${args.length}`);
      }
      value = fn.call(args);
    } else {
      if (rest.length > 0 || value !== undefined) {
        throw new LogTagError(`template: log-tag:${line}:${head.at - lineStart(text, head.at)}: executing "log-tag" at <${head.text}>: can't give argument to non-function ${head.text}`);
      }
      value = operand(head);
    }
  }
  return value as Value;
}

interface Token {
  kind: 'field' | 'ident' | 'string' | 'number';
  text: string;
  at: number;
  value?: Value;
}

function splitCommands(text: string, start: number, end: number, line: number): Token[][] {
  const commands: Token[][] = [[]];
  let i = start;
  while (i < end) {
    const c = text[i];
    if (/\s/.test(c)) {
      i++;
    } else if (c === '|') {
      if (commands[commands.length - 1].length === 0) throw new LogTagError(`template: log-tag:${line}: missing command`);
      commands.push([]);
      i++;
    } else {
      const token = readToken(text, i, end, line);
      commands[commands.length - 1].push(token);
      i = token.at + token.text.length;
    }
  }
  if (commands[commands.length - 1].length === 0 && commands.length > 1) throw new LogTagError(`template: log-tag:${line}: missing command`);
  return commands.filter((c) => c.length > 0);
}

function readToken(text: string, at: number, end: number, line: number): Token {
  const rest = text.slice(at, end);
  let m: RegExpExecArray | null;
  if ((m = /^\.[A-Za-z_]\w*/.exec(rest))) return { kind: 'field', text: m[0], at };
  if ((m = /^[A-Za-z_]\w*/.exec(rest))) return { kind: 'ident', text: m[0], at };
  if ((m = /^-?\d+/.exec(rest))) return { kind: 'number', text: m[0], at, value: Number(m[0]) };
  if ((m = /^"(?:[^"\\\n]|\\.)*"/.exec(rest))) return { kind: 'string', text: m[0], at, value: JSON.parse(m[0]) as string };
  if ((m = /^`[^`]*`/.exec(rest))) return { kind: 'string', text: m[0], at, value: m[0].slice(1, -1) };
  if (rest[0] === '"' || rest[0] === '`') throw new LogTagError(`template: log-tag:${line}: unterminated quoted string`);
  throw new LogTagError(`template: log-tag:${line}: unexpected ${JSON.stringify(rest[0])} in command`);
}

/** How Go's fmt prints the value: a slice of strings as [a b]. */
function printed(v: Value): string {
  return Array.isArray(v) ? `[${v.join(' ')}]` : String(v);
}

function str(v: Value): string {
  return typeof v === 'string' ? v : printed(v);
}

function num(v: Value): number {
  return typeof v === 'number' ? v : Number(v);
}

/** strings.Split: an empty separator splits after each character. */
function goSplit(s: string, sep: string): string[] {
  return sep === '' ? [...s] : s.split(sep);
}

function lineOf(text: string, at: number): number {
  return text.slice(0, at).split('\n').length;
}

function lineStart(text: string, at: number): number {
  return text.lastIndexOf('\n', at - 1) + 1;
}
