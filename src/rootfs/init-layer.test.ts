// The init layer over real layer directories (applied from tars, whiteouts and opaque directories
// included), checked against what dockerd 20.10's init layer showed for the same images: the
// entries of the layer directory itself, with type, mode, owner and size.
import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import type { Header } from 'tar-stream';
import { applyLayer } from '../image/archive/layer-applier.js';
import { makeInitLayer } from './init-layer.js';
import { tarOf } from '../../test/helpers/image-archives.js';

type EntrySpec = Partial<Header> & { name: string; data?: string };

const scratch = mkdtempSync(path.join(os.tmpdir(), 'berth-init-layer-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

let made = 0;
/** The image's layer directories, topmost first, each applied from its entries over the ones before. */
async function imageOf(layers: EntrySpec[][]): Promise<string[]> {
  const dirs: string[] = [];
  for (const entries of layers) {
    const dir = path.join(scratch, `layer-${made++}`);
    mkdirSync(dir);
    const tar = await tarOf(entries.map(({ data, ...header }) => ({ uid: 0, gid: 0, ...header, content: data })));
    await applyLayer(Readable.from([tar]), { target: dir, lowerDirs: dirs });
    dirs.unshift(dir);
  }
  return dirs;
}

/** The init layer made over `layerDirs`, listed: `type mode uid:gid path`, a file's size, a link's target. */
async function initLayerOf(layerDirs: string[]): Promise<string[]> {
  const dir = path.join(scratch, `init-${made++}`);
  mkdirSync(dir);
  await makeInitLayer(dir, layerDirs);
  const lines: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      const childRel = rel === '' ? name : `${rel}/${name}`;
      const st = lstatSync(path.join(dir, childRel));
      const type = st.isDirectory() ? 'd' : st.isSymbolicLink() ? 'l' : st.isFile() ? 'f' : '?';
      const detail = st.isSymbolicLink() ? ` -> ${readlinkSync(path.join(dir, childRel))}` : st.isFile() ? ` ${st.size}` : '';
      lines.push(`${type} ${(st.mode & 0o7777).toString(8)} ${st.uid}:${st.gid} ${childRel}${detail}`);
      if (st.isDirectory()) walk(childRel);
    }
  };
  walk('');
  return lines;
}

/** What the init layer holds over an image that has none of its paths. */
const FULL = [
  'f 755 0:0 .dockerenv 0',
  'd 755 0:0 dev',
  'f 755 0:0 dev/console 0',
  'd 755 0:0 dev/pts',
  'd 755 0:0 dev/shm',
  'd 755 0:0 etc',
  'f 755 0:0 etc/hostname 0',
  'f 755 0:0 etc/hosts 0',
  'l 777 0:0 etc/mtab -> /proc/mounts',
  'f 755 0:0 etc/resolv.conf 0',
  'd 755 0:0 proc',
  'd 755 0:0 sys',
];

describe('the init layer', () => {
  it('over an image without layers, or without any of its paths: all of them, new, 0755 and root', async () => {
    assert.deepEqual(await initLayerOf([]), FULL);
    assert.deepEqual(await initLayerOf(await imageOf([[{ name: 'bin/sh', data: 'sh' }]])), FULL);
  });

  it('covers the image\'s files and links (an /etc/hosts file, links at /etc/hostname, /etc/mtab and /sys, a file at /proc); keeps its directories; copies the directories it writes into', async () => {
    const image = await imageOf([
      [
        { name: 'etc/', type: 'directory', mode: 0o700, uid: 5, gid: 6 },
        { name: 'etc/hosts', data: '1.1.1.1 foo\n' },
        { name: 'etc/hostname', type: 'symlink', linkname: 'hosts' },
        { name: 'etc/mtab', type: 'symlink', linkname: '/proc/self/mounts' },
        { name: 'proc', data: 'x' },
        { name: 'sys-target/', type: 'directory' },
        { name: 'sys', type: 'symlink', linkname: 'sys-target' },
        { name: '.dockerenv/', type: 'directory' },
        { name: 'dev/', type: 'directory', mode: 0o751 },
        { name: 'dev/pts/', type: 'directory', mode: 0o700 },
      ],
    ]);
    // dockerd 20.10's export of a container of this image: .dockerenv/ stays a directory, etc/ keeps
    // drwx------ 5/6, etc/hosts is empty, etc/mtab -> /proc/mounts, proc/ and sys/ are directories
    assert.deepEqual(await initLayerOf(image), [
      'd 751 0:0 dev',
      'f 755 0:0 dev/console 0',
      'd 755 0:0 dev/shm',
      'd 700 5:6 etc',
      'f 755 0:0 etc/hostname 0',
      'f 755 0:0 etc/hosts 0',
      'l 777 0:0 etc/mtab -> /proc/mounts',
      'f 755 0:0 etc/resolv.conf 0',
      'd 755 0:0 proc',
      'd 755 0:0 sys',
    ]);
  });

  it('makes what whiteouts and opaque directories hide, and keeps the directories the image still shows', async () => {
    const image = await imageOf([
      [
        { name: 'etc/hosts', data: '1.1.1.1 a\n' },
        { name: 'etc/keep', data: 'k' },
        { name: 'dev/console/', type: 'directory' },
        { name: 'dev/console/inner', data: 'i' },
        { name: '.dockerenv/', type: 'directory' },
        { name: 'proc/stale', data: 's' },
      ],
      [{ name: 'etc/.wh.hosts' }, { name: '.wh..dockerenv' }, { name: 'dev/', type: 'directory' }, { name: 'dev/.wh..wh..opq' }, { name: 'dev/other', data: 'o' }],
    ]);
    // dockerd 20.10: .dockerenv and dev/console are empty files, proc/ keeps proc/stale
    assert.deepEqual(
      await initLayerOf(image),
      FULL.filter((line) => line !== 'd 755 0:0 proc'),
    );
  });

  it('replaces a non-directory on the way with a new directory: /etc as a link, /dev as a file', async () => {
    const image = await imageOf([
      [
        { name: 'private/etc/', type: 'directory', mode: 0o700 },
        { name: 'etc', type: 'symlink', linkname: 'private/etc' },
        { name: 'dev', data: 'not a directory' },
      ],
    ]);
    assert.deepEqual(await initLayerOf(image), FULL);
  });
});
