// The regular files of a tar, by name, read whole (archives of the workload are small).
import { extract } from 'tar-stream';

export async function tarFiles(tar: Buffer): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const ex = extract();
  const done = new Promise<void>((resolve, reject) => {
    ex.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c) => chunks.push(c as Buffer));
      stream.on('end', () => {
        if (header.type === 'file') files.set(header.name, Buffer.concat(chunks));
        next();
      });
    });
    ex.on('finish', resolve);
    ex.on('error', reject);
  });
  ex.end(tar);
  await done;
  return files;
}

/** The content of the file whose base name is `base`, or undefined. */
export async function tarFile(tar: Buffer, base: string): Promise<Buffer | undefined> {
  for (const [name, data] of await tarFiles(tar)) if (name.split('/').pop() === base) return data;
  return undefined;
}
