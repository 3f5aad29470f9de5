import assert from 'node:assert/strict';
import { it } from 'node:test';
import { readDockerfile } from './read-dockerfile.js';

// as dockerd 20.10 answers POST /build (400, before any output)
it("refuses an empty or unparsable Dockerfile with dockerd's messages", () => {
  assert.throws(() => readDockerfile('Dockerfile', Buffer.alloc(0)), { message: 'the Dockerfile (Dockerfile) cannot be empty' });
  assert.throws(() => readDockerfile('Dockerfile', Buffer.from('# hi\n')), { message: 'failed to parse Dockerfile: file with no instructions' });
  assert.throws(() => readDockerfile('sub/Dockerfile.dev', Buffer.from('FROM busybox\nENV PATH\n')), {
    message: 'failed to parse sub/Dockerfile.dev: ENV must have two arguments',
  });
  assert.throws(() => readDockerfile('Dockerfile', Buffer.from('# escape=x\nFROM busybox')), {
    message: "failed to parse Dockerfile: invalid escape token 'x' does not match ` or \\",
  });
});

it('keeps a byte order mark for the parser to drop', () => {
  const parsed = readDockerfile('Dockerfile', Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from('FROM busybox\n')]));
  assert.equal(parsed.nodes[0].original, 'FROM busybox');
});
