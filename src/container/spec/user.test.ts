import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { resolveInRoot } from './in-root-path.js';
import { resolveUser } from './user.js';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function rootfs(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'berth-user-'));
  dirs.push(root);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), content);
  }
  return root;
}

const PASSWD = ['root:x:0:0:root:/root:/bin/sh', 'test:x:1000:1000::/home/test:/bin/sh', 'daemon:x:2:3::/:/bin/false', ''].join('\n');
const GROUP = ['root:x:0:', 'sys:x:3:test', 'test:x:1000:', 'staff:x:50:test,other', 'nogroup:x:65534:', ''].join('\n');

describe('resolveUser', () => {
  const root = rootfs({ 'etc/passwd': PASSWD, 'etc/group': GROUP });

  it('is root with its groups when User is empty', () => {
    assert.deepEqual(resolveUser(root, ''), { uid: 0, gid: 0, additionalGids: [0], home: '/root' });
  });

  it('finds a name, with the groups that list it', () => {
    assert.deepEqual(resolveUser(root, 'test'), { uid: 1000, gid: 1000, additionalGids: [1000, 3, 50], home: '/home/test' });
  });

  it('takes a uid with or without an entry', () => {
    assert.deepEqual(resolveUser(root, '1000'), { uid: 1000, gid: 1000, additionalGids: [1000, 3, 50], home: '/home/test' });
    assert.deepEqual(resolveUser(root, '4242'), { uid: 4242, gid: 0, additionalGids: [0], home: '' });
  });

  it('takes a group by name or number, without supplementary groups', () => {
    assert.deepEqual(resolveUser(root, 'test:staff'), { uid: 1000, gid: 50, additionalGids: [50], home: '/home/test' });
    assert.deepEqual(resolveUser(root, '2:77'), { uid: 2, gid: 77, additionalGids: [77], home: '/' });
  });

  it('adds GroupAdd by name or number, once each', () => {
    assert.deepEqual(resolveUser(root, 'daemon', ['nogroup', '123', '123', '65534']).additionalGids, [3, 65534, 123]);
    // a name given twice fails the second time, in runc and so in dockerd 20.10
    assert.throws(() => resolveUser(root, 'daemon', ['nogroup', 'nogroup']), { message: 'Unable to find group nogroup: no matching entries in group file' });
  });

  it("refuses unknown names in runc's words", () => {
    assert.throws(() => resolveUser(root, 'xyz'), { kind: 'system', message: 'unable to find user xyz: no matching entries in passwd file' });
    assert.throws(() => resolveUser(root, '0:xyz'), { message: 'unable to find group xyz: no matching entries in group file' });
    assert.throws(() => resolveUser(root, '', ['nogroupx']), { message: 'Unable to find group nogroupx: no matching entries in group file' });
    assert.throws(() => resolveUser(root, '-1'), { message: 'uids and gids must be in range 0-2147483647' });
  });

  it('works without passwd and group files for numbers only', () => {
    const empty = rootfs({});
    assert.deepEqual(resolveUser(empty, '10:20', ['30']), { uid: 10, gid: 20, additionalGids: [20, 30], home: '' });
    assert.throws(() => resolveUser(empty, 'root'), /unable to find user root: no matching entries in passwd file/);
  });

  it("reads the image's files through links without leaving the root filesystem", () => {
    const host = rootfs({ 'secret/passwd': 'evil:x:0:0::/:/bin/sh\n' });
    const linked = rootfs({ 'real/passwd': 'linked:x:7:7::/l:/bin/sh\n' });
    mkdirSync(path.join(linked, 'etc'));
    // absolute and climbing links both land inside the root filesystem
    symlinkSync('/real/passwd', path.join(linked, 'etc/passwd'));
    symlinkSync(`../../../../../..${host}/secret/passwd`, path.join(linked, 'etc/group'));
    assert.equal(resolveUser(linked, 'linked').uid, 7);
    assert.equal(resolveInRoot(linked, '/etc/group'), path.join(linked, host, 'secret/passwd'));

    const escaping = rootfs({});
    mkdirSync(path.join(escaping, 'etc'));
    symlinkSync(`${host}/secret/passwd`, path.join(escaping, 'etc/passwd'));
    assert.throws(() => resolveUser(escaping, 'evil'), /unable to find user evil/);
  });
});
