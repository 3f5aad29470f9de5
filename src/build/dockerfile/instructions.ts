// Parsed Dockerfile nodes into build stages of typed instructions, as buildkit v0.8's
// frontend/dockerfile/instructions (parse.go, commands.go) does for moby v20.10's classic builder:
// the same argument checks, flags and messages. Words are not expanded here (see expand-command.ts).
import { BuilderFlags } from './builder-flags.js';
import { DockerfileError } from './dockerfile-error.js';
import { goQuote } from './go-quote.js';
import type { DockerfileNode, ParsedDockerfile } from './parse-dockerfile.js';
import { parseGoDuration } from './parse-go-duration.js';
import { parseRunMount, type RunMount } from './run-mount.js';
import { goTrimSpace } from './split-command.js';

interface CommandBase {
  /** the instruction as dockerd prints it in "Step N/M : ...": the node's original line, trimmed */
  original: string;
  /** its first line in the Dockerfile */
  line: number;
}

export interface KeyValuePair {
  key: string;
  value: string;
}

export interface EnvCommand extends CommandBase {
  kind: 'env';
  pairs: KeyValuePair[];
}

export interface MaintainerCommand extends CommandBase {
  kind: 'maintainer';
  maintainer: string;
}

export interface LabelCommand extends CommandBase {
  kind: 'label';
  pairs: KeyValuePair[];
  /** a label given with the build (--label): taken as it is, never expanded */
  noExpand?: boolean;
}

export interface AddCommand extends CommandBase {
  kind: 'add';
  sources: string[];
  dest: string;
  chown: string;
  /** the classic builder refuses it ("the --chmod option requires BuildKit...") */
  chmod: string;
}

export interface CopyCommand extends CommandBase {
  kind: 'copy';
  sources: string[];
  dest: string;
  from: string;
  chown: string;
  chmod: string;
}

export interface OnbuildCommand extends CommandBase {
  kind: 'onbuild';
  /** the trigger as written, ONBUILD cut off and trailing space kept (stored in the image's OnBuild) */
  expression: string;
}

export interface WorkdirCommand extends CommandBase {
  kind: 'workdir';
  path: string;
}

export interface RunCommand extends CommandBase {
  kind: 'run';
  /** exec form: the arguments; shell form: one string, the arguments joined by spaces */
  cmdLine: string[];
  /** shell form: the stage's SHELL goes first */
  prependShell: boolean;
  /** flags given ('mount'); the classic builder refuses the step with "the --mount option requires BuildKit..." */
  flagsUsed: string[];
  mounts: RunMount[];
}

export interface CmdCommand extends CommandBase {
  kind: 'cmd';
  cmdLine: string[];
  prependShell: boolean;
}

export interface EntrypointCommand extends CommandBase {
  kind: 'entrypoint';
  /** null for an empty exec form or no argument (Go's nil: `null` in the image config, not []) */
  cmdLine: string[] | null;
  prependShell: boolean;
}

export interface HealthcheckCommand extends CommandBase {
  kind: 'healthcheck';
  /** ['NONE'], ['CMD', ...args] or ['CMD-SHELL', command] */
  test: string[];
  /** 0 when not given, as Go's zero values */
  intervalNs: number;
  timeoutNs: number;
  startPeriodNs: number;
  retries: number;
}

export interface ExposeCommand extends CommandBase {
  kind: 'expose';
  /** sorted, unexpanded: dockerd expands each into words (processWords) */
  ports: string[];
}

export interface UserCommand extends CommandBase {
  kind: 'user';
  user: string;
}

export interface VolumeCommand extends CommandBase {
  kind: 'volume';
  volumes: string[];
}

export interface StopSignalCommand extends CommandBase {
  kind: 'stopsignal';
  signal: string;
}

export interface ArgPair {
  key: string;
  /** absent for `ARG name` */
  value?: string;
}

export interface ArgCommand extends CommandBase {
  kind: 'arg';
  /** 20.10 takes several: ARG a b=c */
  args: ArgPair[];
}

export interface ShellCommand extends CommandBase {
  kind: 'shell';
  shell: string[];
}

export type Command =
  | EnvCommand
  | MaintainerCommand
  | LabelCommand
  | AddCommand
  | CopyCommand
  | OnbuildCommand
  | WorkdirCommand
  | RunCommand
  | CmdCommand
  | EntrypointCommand
  | HealthcheckCommand
  | ExposeCommand
  | UserCommand
  | VolumeCommand
  | StopSignalCommand
  | ArgCommand
  | ShellCommand;

export interface Stage {
  /** the AS name, lower-cased, or '' */
  name: string;
  /** FROM's image, unexpanded (dockerd expands it with the meta args only) */
  baseName: string;
  /** --platform, unexpanded, or '' */
  platform: string;
  /** the FROM line as dockerd prints it in its step */
  original: string;
  line: number;
  commands: Command[];
}

/**
 * The stages and the ARGs before the first FROM. Throws DockerfileError with dockerd's message:
 * an instruction's error prefixed "dockerfile parse error line N: ", or "no build stage in current
 * context" for an instruction other than ARG before the first FROM.
 */
export function parseStages(parsed: ParsedDockerfile): { metaArgs: ArgCommand[]; stages: Stage[] } {
  const metaArgs: ArgCommand[] = [];
  const stages: Stage[] = [];
  for (const node of parsed.nodes) {
    let parsedNode: Stage | Command;
    try {
      parsedNode = parseInstruction(node);
    } catch (err) {
      if (!(err instanceof DockerfileError)) throw err;
      throw new DockerfileError(`dockerfile parse error line ${node.startLine}: ${err.message}`);
    }
    if ('commands' in parsedNode) stages.push(parsedNode);
    else if (stages.length === 0 && parsedNode.kind === 'arg') metaArgs.push(parsedNode);
    else if (stages.length === 0) throw new DockerfileError('no build stage in current context');
    else stages[stages.length - 1].commands.push(parsedNode);
  }
  return { metaArgs, stages };
}

/** One instruction that is not FROM, as an ONBUILD trigger is run; errors are not prefixed. */
export function parseCommand(node: DockerfileNode): Command {
  const parsed = parseInstruction(node);
  if ('commands' in parsed) throw new DockerfileError('*instructions.Stage is not a command type');
  return parsed;
}

type Parser = (node: DockerfileNode, flags: BuilderFlags, base: CommandBase) => Command;

const PARSERS: Record<string, Parser> = {
  env: (node, flags, base) => {
    flags.parse();
    return { kind: 'env', pairs: keyValuePairs(node.args, 'ENV'), ...base };
  },
  maintainer: (node, flags, base) => {
    requireExactlyOne(node, 'MAINTAINER');
    flags.parse();
    return { kind: 'maintainer', maintainer: node.args[0], ...base };
  },
  label: (node, flags, base) => {
    flags.parse();
    return { kind: 'label', pairs: keyValuePairs(node.args, 'LABEL'), ...base };
  },
  add: (node, flags, base) => {
    requireDestination(node, 'ADD');
    const chown = flags.addString('chown');
    const chmod = flags.addString('chmod');
    flags.parse();
    return { kind: 'add', ...sourcesAndDest(node.args), chown: chown.value, chmod: chmod.value, ...base };
  },
  copy: (node, flags, base) => {
    requireDestination(node, 'COPY');
    const chown = flags.addString('chown');
    const from = flags.addString('from');
    const chmod = flags.addString('chmod');
    flags.parse();
    return { kind: 'copy', ...sourcesAndDest(node.args), from: from.value, chown: chown.value, chmod: chmod.value, ...base };
  },
  onbuild: (node, flags, base) => {
    if (node.args.length === 0) throw atLeastOne('ONBUILD');
    flags.parse();
    const trigger = goTrimSpace(node.args[0]).toUpperCase();
    if (trigger === 'ONBUILD') throw new DockerfileError('Chaining ONBUILD via `ONBUILD ONBUILD` isn\'t allowed');
    if (trigger === 'MAINTAINER' || trigger === 'FROM') throw new DockerfileError(`${trigger} isn't allowed as an ONBUILD trigger`);
    // Go's (?i)^\s*ONBUILD\s*: \s is ASCII, case folding Unicode's
    return { kind: 'onbuild', expression: node.original.replace(/^[\t\n\f\r ]*ONBUILD[\t\n\f\r ]*/iu, ''), ...base };
  },
  workdir: (node, flags, base) => {
    requireExactlyOne(node, 'WORKDIR');
    flags.parse();
    return { kind: 'workdir', path: node.args[0], ...base };
  },
  run: (node, flags, base) => {
    const mount = flags.addStrings('mount');
    flags.parse();
    const flagsUsed = flags.usedNames();
    const cmdLine = handleJsonArgs(node);
    return { kind: 'run', cmdLine, prependShell: !node.json, flagsUsed, mounts: mount.values.map(parseRunMount), ...base };
  },
  cmd: (node, flags, base) => {
    flags.parse();
    return { kind: 'cmd', cmdLine: handleJsonArgs(node), prependShell: !node.json, ...base };
  },
  entrypoint: (node, flags, base) => {
    flags.parse();
    const cmdLine = handleJsonArgs(node);
    return { kind: 'entrypoint', cmdLine: cmdLine.length === 0 ? null : cmdLine, prependShell: !node.json, ...base };
  },
  healthcheck: parseHealthcheck,
  expose: (node, flags, base) => {
    if (node.args.length === 0) throw atLeastOne('EXPOSE');
    flags.parse();
    return { kind: 'expose', ports: [...node.args].sort(), ...base };
  },
  user: (node, flags, base) => {
    requireExactlyOne(node, 'USER');
    flags.parse();
    return { kind: 'user', user: node.args[0], ...base };
  },
  volume: (node, flags, base) => {
    if (node.args.length === 0) throw atLeastOne('VOLUME');
    flags.parse();
    const volumes = node.args.map((v) => {
      const volume = goTrimSpace(v);
      if (volume === '') throw new DockerfileError('VOLUME specified can not be an empty string');
      return volume;
    });
    return { kind: 'volume', volumes, ...base };
  },
  // STOPSIGNAL and ARG never look at their flags: dockerd ignores any given
  stopsignal: (node, _flags, base) => {
    requireExactlyOne(node, 'STOPSIGNAL');
    return { kind: 'stopsignal', signal: node.args[0], ...base };
  },
  arg: (node, _flags, base) => {
    if (node.args.length === 0) throw atLeastOne('ARG');
    const args = node.args.map((arg): ArgPair => {
      const eq = arg.indexOf('=');
      if (eq < 0) return { key: arg };
      if (eq === 0) throw new DockerfileError('ARG names can not be blank');
      return { key: arg.slice(0, eq), value: arg.slice(eq + 1) };
    });
    return { kind: 'arg', args, ...base };
  },
  shell: (node, flags, base) => {
    flags.parse();
    const shell = handleJsonArgs(node);
    if (shell.length === 0) throw atLeastOne('SHELL');
    if (!node.json) throw new DockerfileError('SHELL requires the arguments to be in JSON form');
    return { kind: 'shell', shell, ...base };
  },
};

function parseInstruction(node: DockerfileNode): Stage | Command {
  const flags = new BuilderFlags(node.flags);
  if (node.keyword === 'from') return parseFrom(node, flags);
  if (!Object.hasOwn(PARSERS, node.keyword)) throw new DockerfileError(`unknown instruction: ${node.keyword.toUpperCase()}`);
  return PARSERS[node.keyword](node, flags, { original: goTrimSpace(node.original), line: node.startLine });
}

function parseFrom(node: DockerfileNode, flags: BuilderFlags): Stage {
  const name = buildStageName(node.args);
  const platform = flags.addString('platform');
  flags.parse();
  return { name, baseName: node.args[0], platform: platform.value, original: goTrimSpace(node.original), line: node.startLine, commands: [] };
}

function buildStageName(args: string[]): string {
  // strings.EqualFold(args[1], "as"): ſ (U+017F) folds to s
  if (args.length === 3 && /^[aA][sS\u017f]$/.test(args[1])) {
    const name = args[2].toLowerCase();
    if (!/^[a-z][a-z0-9\-_.]*$/.test(name)) {
      throw new DockerfileError(`invalid name for build stage: ${goQuote(args[2])}, name can't start with a number or contain symbols`);
    }
    return name;
  }
  if (args.length !== 1) throw new DockerfileError('FROM requires either one or three arguments');
  return '';
}

function parseHealthcheck(node: DockerfileNode, flags: BuilderFlags, base: CommandBase): HealthcheckCommand {
  if (node.args.length === 0) throw atLeastOne('HEALTHCHECK');
  const type = node.args[0].toUpperCase();
  const rest = node.args.slice(1);
  const none = { kind: 'healthcheck', intervalNs: 0, timeoutNs: 0, startPeriodNs: 0, retries: 0, ...base } as const;
  if (type === 'NONE') {
    // flags are not even looked at
    if (rest.length !== 0) throw new DockerfileError('HEALTHCHECK NONE takes no arguments');
    return { ...none, test: ['NONE'] };
  }
  const interval = flags.addString('interval');
  const timeout = flags.addString('timeout');
  const startPeriod = flags.addString('start-period');
  const retries = flags.addString('retries');
  flags.parse();
  if (type !== 'CMD') throw new DockerfileError(`Unknown type ${goQuote(type)} in HEALTHCHECK (try CMD)`);
  const cmd = handleJsonArgs({ args: rest, json: node.json });
  if (cmd.length === 0) throw new DockerfileError('Missing command after HEALTHCHECK CMD');
  return {
    ...none,
    test: [node.json ? 'CMD' : 'CMD-SHELL', ...cmd],
    intervalNs: optionalInterval('interval', interval.value),
    timeoutNs: optionalInterval('timeout', timeout.value),
    startPeriodNs: optionalInterval('start-period', startPeriod.value),
    retries: retries.value === '' ? 0 : atLeastOneRetry(retries.value),
  };
}

// container.MinimumDuration
const MINIMUM_DURATION_NS = 1_000_000;

function optionalInterval(name: string, value: string): number {
  if (value === '') return 0;
  let ns: number;
  try {
    ns = parseGoDuration(value);
  } catch (err) {
    throw new DockerfileError((err as Error).message);
  }
  if (ns < MINIMUM_DURATION_NS) throw new DockerfileError(`Interval ${goQuote(name)} cannot be less than 1ms`);
  return ns;
}

// strconv.ParseInt(value, 10, 32), then at least 1
function atLeastOneRetry(value: string): number {
  if (!/^[+-]?[0-9]+$/.test(value)) throw new DockerfileError(`strconv.ParseInt: parsing ${goQuote(value)}: invalid syntax`);
  const n = Number(value);
  if (n > 2 ** 31 - 1 || n < -(2 ** 31)) throw new DockerfileError(`strconv.ParseInt: parsing ${goQuote(value)}: value out of range`);
  if (n < 1) throw new DockerfileError(`--retries must be at least 1 (not ${n})`);
  return n;
}

// The exec form as is; the shell form as one string.
function handleJsonArgs(node: Pick<DockerfileNode, 'args' | 'json'>): string[] {
  if (node.args.length === 0) return [];
  return node.json ? [...node.args] : [node.args.join(' ')];
}

function keyValuePairs(args: string[], command: string): KeyValuePair[] {
  if (args.length === 0) throw atLeastOne(command);
  const pairs: KeyValuePair[] = [];
  for (let i = 0; i < args.length; i += 2) {
    if (args[i] === '') throw new DockerfileError(`${command} names can not be blank`);
    pairs.push({ key: args[i], value: args[i + 1] });
  }
  return pairs;
}

function sourcesAndDest(args: string[]): { sources: string[]; dest: string } {
  return { sources: args.slice(0, -1), dest: args[args.length - 1] };
}

function requireExactlyOne(node: DockerfileNode, command: string): void {
  if (node.args.length !== 1) throw new DockerfileError(`${command} requires exactly one argument`);
}

function requireDestination(node: DockerfileNode, command: string): void {
  if (node.args.length < 2) {
    throw new DockerfileError(`${command} requires at least two arguments, but only one was provided. Destination could not be determined`);
  }
}

function atLeastOne(command: string): DockerfileError {
  return new DockerfileError(`${command} requires at least one argument`);
}
