// An instruction's --flags checked against those it takes (buildkit's BFlags), with its messages.
import { DockerfileError } from './dockerfile-error.js';

export interface StringFlag {
  value: string;
}

export interface StringsFlag {
  values: string[];
}

export class BuilderFlags {
  private readonly strings = new Map<string, StringFlag>();
  private readonly lists = new Map<string, StringsFlag>();
  private readonly used = new Set<string>();

  constructor(private readonly args: readonly string[]) {}

  addString(name: string): StringFlag {
    const flag = { value: '' };
    this.strings.set(name, flag);
    return flag;
  }

  /** a flag that may be given several times */
  addStrings(name: string): StringsFlag {
    const flag = { values: [] };
    this.lists.set(name, flag);
    return flag;
  }

  /** names of the flags given, in order */
  usedNames(): string[] {
    return [...this.used];
  }

  // Every flag the parser extracts starts with -- and is not -- alone: BFlags's checks of those are left out.
  parse(): void {
    for (const arg of this.args) {
      const eq = arg.indexOf('=');
      const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      const single = this.strings.get(name);
      const list = this.lists.get(name);
      if (!single && !list) throw new DockerfileError(`Unknown flag: ${name}`);
      if (single && this.used.has(name)) throw new DockerfileError(`Duplicate flag specified: ${name}`);
      this.used.add(name);
      if (eq < 0) throw new DockerfileError(`Missing a value on flag: ${name}`);
      if (single) single.value = arg.slice(eq + 1);
      else list?.values.push(arg.slice(eq + 1));
    }
  }
}
