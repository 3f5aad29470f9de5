// A build's arguments as the classic builder keeps them (moby v20.10 builder/dockerfile/buildargs.go):
// the values given with --build-arg, the ARGs declared before the first FROM (meta args, for FROM
// lines and for a stage that declares them again), the ARGs the current stage declared (only those,
// and the proxy args, reach its RUN steps), and which were referenced, so that the build can warn
// about the given ones nothing used. The proxy args are allowed in every stage without an ARG; a
// RUN's cache key names them only when declared.

import { BUILTIN_BUILD_ARGS as BUILTIN_ARGS } from '../dockerfile/build-args.js';

export class BuildArgs {
  private allowed = new Map<string, string | undefined>();
  private readonly meta: Map<string, string | undefined>;
  private readonly referenced: Set<string>;
  private readonly fromOptions: ReadonlyMap<string, string | null>;

  constructor(fromOptions: ReadonlyMap<string, string | null>, meta = new Map<string, string | undefined>(), referenced = new Set<string>()) {
    this.fromOptions = fromOptions;
    this.meta = meta;
    this.referenced = referenced;
  }

  /** A new stage's: the meta args and what was referenced so far, no ARG of its own yet. */
  forStage(): BuildArgs {
    return new BuildArgs(this.fromOptions, new Map(this.meta), new Set(this.referenced));
  }

  /** What a stage referenced counts for the whole build's warning. */
  mergeReferenced(other: BuildArgs): void {
    for (const key of other.referenced) this.referenced.add(key);
  }

  addArg(key: string, value: string | undefined): void {
    this.allowed.set(key, value);
    this.referenced.add(key);
  }

  addMetaArg(key: string, value: string | undefined): void {
    this.meta.set(key, value);
  }

  /** The stage's ARGs and the proxy args that have a value, as KEY=value. */
  allowedValues(): Map<string, string> {
    return this.valuesOf(this.allowed);
  }

  /** The meta args that have a value (FROM lines are expanded with these only). */
  metaValues(): Map<string, string> {
    return this.valuesOf(this.meta);
  }

  /** The allowed values a RUN's environment gets: those the config's Env does not set. */
  filterAllowed(env: readonly string[]): string[] {
    const set = new Set(env.map((e) => e.split('=', 1)[0]));
    return [...this.allowedValues()].filter(([key]) => !set.has(key)).map(([key, value]) => `${key}=${value}`);
  }

  /** Whether an arg belongs in a RUN's cache key: declared in the stage, or not a proxy arg. */
  isReferencedOrNotBuiltin(key: string): boolean {
    return this.allowed.has(key) || !BUILTIN_ARGS.has(key);
  }

  /** dockerd's warning for --build-arg values nothing declared, or undefined. */
  unusedWarning(): string | undefined {
    const left = [...this.fromOptions.keys()].filter((key) => !BUILTIN_ARGS.has(key) && !this.referenced.has(key)).sort();
    return left.length > 0 ? `[Warning] One or more build-args [${left.join(' ')}] were not consumed\n` : undefined;
  }

  private valuesOf(source: ReadonlyMap<string, string | undefined>): Map<string, string> {
    const out = new Map<string, string>();
    for (const key of new Set([...source.keys(), ...BUILTIN_ARGS])) {
      const value = this.valueOf(key, source);
      if (value !== undefined) out.set(key, value);
    }
    return out;
  }

  /** An option's value wins; an ARG without a default (or a proxy arg) takes the meta arg's. */
  private valueOf(key: string, source: ReadonlyMap<string, string | undefined>): string | undefined {
    const given = this.fromOptions.get(key);
    if (given !== undefined && given !== null) return given;
    return source.get(key) ?? this.meta.get(key);
  }
}
