import assert from 'node:assert/strict';
import { it } from 'node:test';
import { goArch } from '../lib/go-arch.js';
import { parsePlatform } from './platform.js';

it('takes the host platform by default and refuses others', () => {
  assert.deepEqual(parsePlatform(''), { os: 'linux', architecture: goArch() });
  assert.deepEqual(parsePlatform(`linux/${goArch()}`), { os: 'linux', architecture: goArch() });
  assert.throws(() => parsePlatform('windows/amd64'), /operating system is not supported/);
  assert.throws(() => parsePlatform('linux/s390x-not-this-one'), /runs linux\//);
});
