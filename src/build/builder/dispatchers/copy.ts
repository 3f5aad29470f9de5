// COPY and ADD (moby v20.10 dispatchers.go dispatchCopy/dispatchAdd, internals.go performCopy):
// the sources found in the context (or, with --from, in an earlier stage's or an image's root) and
// hashed for the cache key the step's Cmd carries ("#(nop) COPY file:<hex> in /dest "); on a miss
// they are copied into a root file system of the image so far, which becomes the next image. No
// container shows: dockerd copies into a bare layer (the image names no container), so berth's
// step container for it is neither announced nor kept.
import { EngineError } from '../../../errors.js';
import { resolveChown } from '../../context/chown-spec.js';
import type { CopySource } from '../../context/copy-source.js';
import { goClean } from '../../context/go-path.js';
import { CopySources } from '../../context/copy-sources.js';
import { scopedRootAt } from '../../context/scoped-root-at.js';
import type { AddCommand, CopyCommand } from '../../dockerfile/instructions.js';
import type { BuildSession } from '../build-session.js';
import type { DispatchState } from '../dispatch-state.js';

const CHMOD_NEEDS_BUILDKIT = 'the --chmod option requires BuildKit. Refer to https://docs.docker.com/go/buildkit/ to learn how to build images with BuildKit enabled';

export async function dispatchCopy(s: BuildSession, state: DispatchState, c: AddCommand | CopyCommand): Promise<void> {
  if (c.chmod !== '') throw new EngineError('system', CHMOD_NEEDS_BUILDKIT);
  const from = c.kind === 'copy' ? c.from : '';
  if (from === '') return copyFrom(s, state, c, s.context.source, false);
  let imageId: string;
  try {
    imageId = await s.fromImage(from);
  } catch (err) {
    throw new EngineError('system', `invalid from flag value ${from}: ${(err as Error).message}`);
  }
  // the image's root, mounted through a container of it that never runs
  return s.withImageRoot(imageId, (source) => copyFrom(s, state, c, source, true));
}

async function copyFrom(s: BuildSession, state: DispatchState, c: AddCommand | CopyCommand, source: CopySource | undefined, fromImage: boolean): Promise<void> {
  const cmdName = c.kind === 'add' ? 'ADD' : 'COPY';
  const copies = await CopySources.resolve({
    cmdName,
    sources: c.sources,
    dest: c.dest,
    source,
    fromImage,
    stagingDir: s.stagingDir,
    signal: s.signal,
    onDownloadProgress: (_url, current, total) => void s.output.progress.progress('', 'Downloading', current, total),
  });
  try {
    const chown = c.chown === '' ? '' : `--chown=${c.chown}`;
    const config = { ...structuredClone(state.runConfig), Cmd: [...state.shell(), `#(nop) ${cmdName} ${chown}${copies.cacheKey} in ${c.dest} `] };
    if (await s.steps.probeCache(state, config)) return;
    const { containers } = s.steps;
    const { id } = await containers.create(state.imageId, config, s.options.hostConfig);
    try {
      await containers.withRootfs(id, async (merged) => {
        const root = scopedRootAt(merged);
        try {
          // without --chown, root owns what is copied, except from an image or stage, whose owners stay
          const owner = c.chown !== '' ? resolveChown(root, c.chown) : fromImage ? undefined : { uid: 0, gid: 0 };
          await copies.copyInto({ root, dest: destination(state.runConfig.WorkingDir ?? '', c.dest), owner, decompress: cmdName === 'ADD' });
        } finally {
          root.close();
        }
      });
      await s.steps.commitContainer(state, id, config, false);
    } finally {
      await containers.remove(id);
    }
  } finally {
    await copies.close();
  }
}

/** normalizeDest: a relative destination is under WORKDIR (path.Join, so cleaned); a trailing `/` is kept. */
function destination(workdir: string, dest: string): string {
  if (dest.startsWith('/')) return dest;
  const joined = goClean(`/${workdir}/${dest}`);
  return dest.endsWith('/') && !joined.endsWith('/') ? `${joined}/` : joined;
}
