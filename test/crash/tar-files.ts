// A file of a tar found by its base name (archives of the workload are small).
import { untar } from '../helpers/image-archives.js';

/** The content of the file whose base name is `base`, or undefined. */
export async function tarFile(tar: Buffer, base: string): Promise<Buffer | undefined> {
  for (const [name, data] of await untar(tar)) if (name.split('/').pop() === base) return data;
  return undefined;
}
