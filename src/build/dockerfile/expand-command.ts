// The words of an instruction that dockerd expands before running it (buildkit's Expand methods):
// ENV and LABEL keys and values, ADD and COPY sources, destination and --chown (not --from nor
// --chmod), WORKDIR, USER, VOLUME, STOPSIGNAL, ARG names and defaults. Nothing else: RUN, CMD,
// ENTRYPOINT, SHELL, HEALTHCHECK, ONBUILD and MAINTAINER are kept as written; EXPOSE's ports are
// expanded into words by the builder itself (processWords), FROM's image and platform with the
// meta args only.
import type { Command } from './instructions.js';

/** A copy with its words expanded, in dockerd's order (the first failing word is the error). */
export function expandCommand<C extends Command>(cmd: C, expand: (word: string) => string): C {
  const c: Command = cmd;
  switch (c.kind) {
    case 'env':
    case 'label':
      return { ...cmd, pairs: c.pairs.map((p) => ({ key: expand(p.key), value: expand(p.value) })) };
    case 'add':
    case 'copy': {
      const chown = expand(c.chown);
      return { ...cmd, chown, sources: c.sources.map(expand), dest: expand(c.dest) };
    }
    case 'workdir':
      return { ...cmd, path: expand(c.path) };
    case 'user':
      return { ...cmd, user: expand(c.user) };
    case 'volume':
      return { ...cmd, volumes: c.volumes.map(expand) };
    case 'stopsignal':
      return { ...cmd, signal: expand(c.signal) };
    case 'arg':
      return { ...cmd, args: c.args.map((a) => (a.value === undefined ? { key: expand(a.key) } : { key: expand(a.key), value: expand(a.value) })) };
    default:
      return cmd;
  }
}
