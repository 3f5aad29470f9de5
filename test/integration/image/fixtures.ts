// The images the image tests load: three layers with the cases a layer applier must get right.
import { tarOf, makeImage, type TestImage } from '../../helpers/image-archives.js';

/**
 * Layer 1: files, a directory, a symlink, a hard link. Layer 2: deletes a file (whiteout), replaces
 * a directory's contents (opaque), hard-links a file of layer 1. Layer 3 (sent gzip'd): a new file.
 */
export async function threeLayerImage(repoTags = ['test/multi:v1'], variant = 'test'): Promise<TestImage> {
  const base = await tarOf([
    { name: 'etc/', type: 'directory' },
    { name: 'etc/hostname', content: 'base\n' },
    // each variant has layers of its own, not shared with other fixtures
    { name: 'etc/variant', content: `${variant}\n` },
    { name: 'etc/gone', content: 'deleted in layer 2\n' },
    { name: 'data/', type: 'directory' },
    { name: 'data/old-1', content: 'hidden by the opaque dir\n' },
    { name: 'bin/', type: 'directory' },
    { name: 'bin/tool', content: '#!/bin/sh\necho tool\n', mode: 0o755, uid: 1000, gid: 1000 },
    // a hard link's header carries its inode's mode and owner, as in archives Docker writes
    { name: 'bin/tool-link', type: 'link', linkname: 'bin/tool', mode: 0o755, uid: 1000, gid: 1000 },
    { name: 'bin/sh-link', type: 'symlink', linkname: '/bin/tool' },
  ]);
  const second = await tarOf([
    { name: 'etc/', type: 'directory' },
    { name: 'etc/.wh.gone', content: '' },
    { name: 'data/', type: 'directory' },
    { name: 'data/.wh..wh..opq', content: '' },
    { name: 'data/new-1', content: 'after the opaque dir\n' },
    { name: 'bin/', type: 'directory' },
    { name: 'bin/tool-hardlink-from-lower', type: 'link', linkname: 'bin/tool', mode: 0o755, uid: 1000, gid: 1000 },
  ]);
  const third = await tarOf([{ name: 'top.txt', content: 'layer three\n' }]);
  return makeImage([base, second, third], { repoTags, labels: { 'org.example.kind': variant } });
}

