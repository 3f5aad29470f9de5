// The daemon's ID, stable across restarts: made once and kept in the data root.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../store/atomic-file.js';

const ID_PATTERN = /^[0-9a-f-]{36}$/;

export async function loadEngineId(dataRoot: string): Promise<string> {
  const file = path.join(dataRoot, 'engine-id');
  try {
    const id = readFileSync(file, 'utf8').trim();
    if (ID_PATTERN.test(id)) return id;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const id = randomUUID();
  await writeFileAtomic(file, `${id}\n`, 0o644);
  return id;
}
