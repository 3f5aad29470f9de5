import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { ScopedRoot } from '../../container/archive/scoped-root.js';
import { resolveChown } from './chown-spec.js';
import { scopedRootAt } from './scoped-root-at.js';

let base: string;
let root: ScopedRoot;
let bare: ScopedRoot;
before(() => {
  base = mkdtempSync(path.join(os.tmpdir(), 'chown-spec-'));
  mkdirSync(path.join(base, 'rootfs/etc'), { recursive: true });
  mkdirSync(path.join(base, 'rootfs/data'));
  writeFileSync(path.join(base, 'rootfs/data/passwd'), 'root:x:0:0:root:/root:/bin/sh\n\napp:x:1000:1000::/home/app:/bin/sh\napp:x:2000:2000::/:/bin/sh\nodd:x:notanumber:0::/:/bin/sh\n');
  // a link in the image: read inside its root, never the host's /etc
  symlinkSync('/data/passwd', path.join(base, 'rootfs/etc/passwd'));
  writeFileSync(path.join(base, 'rootfs/etc/group'), 'root:x:0:\nstaff:x:50:app\napp:x:1001:\n');
  mkdirSync(path.join(base, 'bare'));
  root = scopedRootAt(path.join(base, 'rootfs'));
  bare = scopedRootAt(path.join(base, 'bare'));
});
after(() => {
  root.close();
  bare.close();
  rmSync(base, { recursive: true, force: true });
});

test('names from the image\'s /etc files, numbers as they are, the user\'s string as the group\'s', () => {
  assert.deepEqual(resolveChown(root, 'app:staff'), { uid: 1000, gid: 50 });
  assert.deepEqual(resolveChown(root, 'app'), { uid: 1000, gid: 1001 });
  assert.deepEqual(resolveChown(root, '7:8'), { uid: 7, gid: 8 });
  assert.deepEqual(resolveChown(root, '7'), { uid: 7, gid: 7 });
  assert.deepEqual(resolveChown(root, 'root:9'), { uid: 0, gid: 9 });
  assert.deepEqual(resolveChown(root, 'odd:0'), { uid: 0, gid: 0 });
  assert.deepEqual(resolveChown(bare, '1:2'), { uid: 1, gid: 2 });
});

test("dockerd's errors", () => {
  const prefix = 'unable to convert uid/gid chown string to host mapping: ';
  assert.throws(() => resolveChown(root, 'nouser'), { message: `${prefix}can't find uid for user nouser: no such user: nouser` });
  assert.throws(() => resolveChown(root, 'root:nogroup'), { message: `${prefix}can't find gid for group nogroup: no such group: nogroup` });
  assert.throws(() => resolveChown(root, '1:2:3'), { message: `${prefix}invalid chown string format: 1:2:3` });
  assert.throws(() => resolveChown(bare, 'foo'), { message: `${prefix}can't find uid for user foo: open /etc/passwd: no such file or directory` });
  assert.throws(() => resolveChown(bare, '0:root'), { message: `${prefix}can't find gid for group root: open /etc/group: no such file or directory` });
});
