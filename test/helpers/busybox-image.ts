// The tests' busybox image, made offline from Debian's static /bin/busybox (package busybox-static):
// one layer with the binary, every applet as a symbolic link beside it in /bin, /etc/passwd and
// /etc/group with root, nobody and a user `test` (1000:1000), /tmp (1777), /root and /home/test.
// Config as Docker Hub's busybox: Cmd ["sh"] and the usual PATH.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Berthd } from './berthd.js';
import { dockerSaveArchive, makeImage, sha256, tarOf, type LayerEntry, type TestImage } from './image-archives.js';

export const BUSYBOX_BINARY = '/bin/busybox';
export const BUSYBOX_PATH = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

const PASSWD = ['root:x:0:0:root:/root:/bin/sh', 'nobody:x:65534:65534:nobody:/home:/bin/false', 'test:x:1000:1000::/home/test:/bin/sh', ''].join('\n');
const GROUP = ['root:x:0:', 'nogroup:x:65534:', 'test:x:1000:', ''].join('\n');

let layer: Promise<Buffer> | undefined;

/** The image's one layer tar (made once per process). */
export function busyboxLayer(): Promise<Buffer> {
  layer ??= makeLayer();
  return layer;
}

async function makeLayer(): Promise<Buffer> {
  // a dynamic busybox (Debian's package `busybox`) would need the host's libc inside the image
  const ldd = execFileSync('sh', ['-c', `ldd ${BUSYBOX_BINARY} 2>&1 || true`], { encoding: 'utf8' });
  if (!ldd.includes('not a dynamic executable')) {
    throw new Error(`${BUSYBOX_BINARY} is not static (ldd: ${ldd.trim()}): install Debian's busybox-static (node scripts/setup.mjs --for-tests)`);
  }
  const applets = execFileSync(BUSYBOX_BINARY, ['--list'], { encoding: 'utf8' })
    .split('\n')
    .filter((name) => name !== '' && name !== 'busybox');
  const entries: LayerEntry[] = [
    { name: 'bin/', type: 'directory' },
    { name: 'bin/busybox', content: readFileSync(BUSYBOX_BINARY), mode: 0o755 },
    ...applets.map((name): LayerEntry => ({ name: `bin/${name}`, type: 'symlink', linkname: 'busybox', mode: 0o777 })),
    { name: 'etc/', type: 'directory' },
    { name: 'etc/passwd', content: PASSWD },
    { name: 'etc/group', content: GROUP },
    { name: 'home/', type: 'directory' },
    { name: 'home/test/', type: 'directory', uid: 1000, gid: 1000 },
    { name: 'root/', type: 'directory', mode: 0o700 },
    { name: 'tmp/', type: 'directory', mode: 0o1777 },
    { name: 'usr/', type: 'directory' },
    { name: 'usr/bin/', type: 'directory' },
    { name: 'usr/sbin/', type: 'directory' },
    { name: 'var/', type: 'directory' },
  ];
  return tarOf(entries);
}

/** The busybox image (layer and config) under the given tags. */
export async function busyboxImage(repoTags: string[] = ['busybox:latest']): Promise<TestImage> {
  const base = makeImage([await busyboxLayer()], { repoTags, cmd: ['sh'] });
  const config = JSON.parse(base.config.toString('utf8')) as { config: Record<string, unknown> };
  config.config = { ...config.config, Env: [BUSYBOX_PATH], Cmd: ['sh'] };
  const bytes = Buffer.from(JSON.stringify(config));
  return { ...base, config: bytes, id: sha256(bytes) };
}

/** A `docker save` archive of the busybox image, tagged `tag`. */
export async function busyboxImageArchive(tag = 'busybox:latest'): Promise<Buffer> {
  return dockerSaveArchive([await busyboxImage([tag])]);
}

/** Loads the busybox image into the daemon (POST /images/load); its image ID. */
export async function loadBusybox(d: Berthd, tag = 'busybox:latest'): Promise<string> {
  const image = await busyboxImage([tag]);
  const r = await d.request('POST', '/images/load?quiet=1', { body: await dockerSaveArchive([image]), timeoutMs: 60000 });
  if (r.status !== 200 || !r.body.includes(`Loaded image: ${tag}`)) throw new Error(`loading ${tag} answered ${r.status}: ${r.body}`);
  return image.id;
}
