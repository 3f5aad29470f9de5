import assert from 'node:assert/strict';
import { constants, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ScopedRoot } from './scoped-root.js';

describe('ScopedRoot', () => {
  let base: string;
  let root: ScopedRoot;
  before(() => {
    base = mkdtempSync(path.join(os.tmpdir(), 'scoped-root-'));
    const r = path.join(base, 'root');
    mkdirSync(path.join(r, 'etc'), { recursive: true });
    mkdirSync(path.join(r, 'd', 'sub'), { recursive: true });
    writeFileSync(path.join(r, 'etc', 'passwd'), 'inside\n');
    writeFileSync(path.join(base, 'outside'), 'outside\n');
    symlinkSync('/', path.join(r, 'toroot'));
    symlinkSync('/etc', path.join(r, 'd', 'abs'));
    symlinkSync('../../../../..', path.join(r, 'd', 'sub', 'up'));
    symlinkSync('../outside', path.join(r, 'climb'));
    symlinkSync('loop2', path.join(r, 'loop1'));
    symlinkSync('loop1', path.join(r, 'loop2'));
    symlinkSync('passwd', path.join(r, 'etc', 'rel'));
    root = new ScopedRoot({ rootFd: openSync(r, constants.O_RDONLY | constants.O_DIRECTORY), dataMounts: new Set(), mountSources: new Map([['/mnt', path.join(base, 'src')]]) });
    mkdirSync(path.join(base, 'src'));
    writeFileSync(path.join(base, 'src', 'm'), 'mounted\n');
  });
  after(() => {
    root.close();
    rmSync(base, { recursive: true, force: true });
  });

  const resolved = (p: string, followLast = true) => {
    const res = root.resolve(p, { followLast });
    root.release(res.parents);
    return res;
  };
  const read = (p: string) => {
    const res = root.resolve(p, { followLast: true });
    try {
      assert.ok(res.found, p);
      return readFileSync(res.entry.hostPath, 'utf8');
    } finally {
      root.release(res.parents);
    }
  };

  test('absolute links start again at the container root, relative ones never climb above it', () => {
    assert.equal(read('/toroot/etc/passwd'), 'inside\n');
    assert.equal(read('/d/abs/passwd'), 'inside\n');
    assert.equal(read('/d/sub/up/etc/passwd'), 'inside\n');
    assert.equal(read('/../../etc/passwd'), 'inside\n');
    const climb = resolved('/climb');
    assert.equal(climb.found, false);
    const paths = (p: string) => {
      const res = resolved(p);
      return res.found ? res.entry.path : undefined;
    };
    assert.equal(paths('/d/sub/up'), '/');
    assert.equal(paths('/etc/rel'), '/etc/passwd');
  });

  test('the last link is kept unless followed; a loop is refused; a file as a parent is not a directory', () => {
    const link = resolved('/etc/rel', false);
    assert.ok(link.found && link.entry.stats.isSymbolicLink());
    assert.throws(() => resolved('/loop1'), /too many levels of symbolic links/);
    const notDir = resolved('/etc/passwd/x');
    assert.ok(!notDir.found && notDir.reason === 'not-a-directory');
    const missing = resolved('/d/nope/x');
    assert.ok(!missing.found && missing.reason === 'missing' && missing.name === 'nope');
  });

  test('a mount source stands at its destination', () => {
    assert.equal(read('/mnt/m'), 'mounted\n');
  });
});
