// The absolute path of a command on PATH (conmon runs its runtime without a PATH search), and
// where the init of `--init` is.
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { EngineError } from '../errors.js';

const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** catatonit, Debian's, installed by setup: berth's docker-init for `--init` (Docker ships tini). */
export const INIT_BINARY = '/usr/bin/catatonit';

export function resolveCommand(name: string, searchPath = process.env.PATH ?? DEFAULT_PATH): string {
  for (const dir of `${searchPath}:${DEFAULT_PATH}`.split(':')) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new EngineError('system', `${name} is not installed (not found on PATH); run the setup (node scripts/setup.mjs)`);
}
