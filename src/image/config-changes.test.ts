import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EngineError } from '../errors.js';
import { applyChanges, parseChanges } from './config-changes.js';

describe('import and commit changes', () => {
  it('applies every instruction dockerd allows there', () => {
    const config = applyChanges(
      { Env: ['PATH=/bin', 'A=1'] },
      parseChanges([
        'CMD ["/bin/sh", "-c", "echo hi"]',
        'ENTRYPOINT /entry.sh --flag',
        'ENV A=2 B="two words"',
        'ENV C value with spaces',
        'EXPOSE 80 53/UDP',
        'LABEL a=b c="d e"',
        'ONBUILD RUN echo built',
        'USER nobody',
        'VOLUME ["/data", "/logs"]',
        'WORKDIR /srv',
      ]),
    );
    assert.deepEqual(config, {
      Env: ['PATH=/bin', 'A=2', 'B=two words', 'C=value with spaces'],
      Cmd: ['/bin/sh', '-c', 'echo hi'],
      Entrypoint: ['/bin/sh', '-c', '/entry.sh --flag'],
      ExposedPorts: { '80/tcp': {}, '53/udp': {} },
      Labels: { a: 'b', c: 'd e' },
      OnBuild: ['RUN echo built'],
      User: 'nobody',
      Volumes: { '/data': {}, '/logs': {} },
      WorkingDir: '/srv',
    });
  });
  it('refuses other instructions with dockerd\'s message', () => {
    assert.throws(
      () => parseChanges(['BOGUS x']),
      (err: unknown) => err instanceof EngineError && err.kind === 'invalidParameter' && err.message === 'bogus is not a valid change command',
    );
    assert.throws(() => parseChanges(['RUN echo']), /run is not a valid change command/);
  });
});
