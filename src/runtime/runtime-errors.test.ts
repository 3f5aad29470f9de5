// runc 1.1.5's own words (its JSON log lines and stderr), as collected on Debian 12.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ContainerCommandError, RuntimeError, runtimeLogErrors, runtimeMessage, translateRuntimeError } from './runtime-errors.js';

const log = (msg: string, level = 'error') => JSON.stringify({ level, msg, time: '2026-11-22T13:25:22Z' });

describe('runtime errors', () => {
  it('reads the error lines of a JSON log, falling back to stderr', () => {
    const text = [log('something', 'warning'), log('first'), 'not json', log('container does not exist'), ''].join('\n');
    assert.deepEqual(runtimeLogErrors(text), ['first', 'not json', 'container does not exist']);
    assert.equal(runtimeMessage(text, 'ignored', 'x'), 'container does not exist');
    assert.equal(runtimeMessage('', 'line one\nlast line\n', 'x'), 'last line');
    assert.equal(runtimeMessage('', '', 'runc exited with 1'), 'runc exited with 1');
  });

  it('gives 127 for a missing command, in the shape Docker 20.10 printed it', () => {
    const err = translateRuntimeError('create', 'c1', 'runc create failed: unable to start container process: exec: "nope": executable file not found in $PATH');
    assert.ok(err instanceof ContainerCommandError);
    assert.equal(err.kind, 'invalidParameter');
    assert.equal(err.exitCode, 127);
    assert.equal(err.message, 'OCI runtime create failed: unable to start container process: exec: "nope": executable file not found in $PATH: unknown');
    const missing = translateRuntimeError('create', 'c1', 'runc create failed: unable to start container process: exec: "/nope/x": stat /nope/x: no such file or directory');
    assert.equal((missing as ContainerCommandError).exitCode, 127);
  });

  it('gives 126 for a command that cannot be executed', () => {
    for (const msg of ['runc create failed: unable to start container process: exec: "/tmp": permission denied', 'exec /bin/badfmt: exec format error']) {
      const err = translateRuntimeError('create', 'c1', msg);
      assert.ok(err instanceof ContainerCommandError, msg);
      assert.equal(err.exitCode, 126);
      assert.match(err.message, /^OCI runtime create failed: .*: unknown$/);
    }
  });

  it('gives 127 and dockerd’s hint for a mount onto the wrong kind of file', () => {
    const err = translateRuntimeError('run', 'c1', 'runc run failed: unable to start container process: error during container init: error mounting "/x" to rootfs at "/etc/hostname": not a directory');
    assert.equal((err as ContainerCommandError).exitCode, 127);
    assert.match(err.message, /not a directory: unknown: Are you trying to mount a directory onto a file \(or vice-versa\)\?/);
  });

  it('gives an exec 127 for a missing command and 126 for any other failure to start it, keeping runc’s words', () => {
    const cases: Array<[string, number]> = [
      ['exec failed: unable to start container process: exec: "nope": executable file not found in $PATH', 127],
      ['exec failed: unable to start container process: exec: "/nope/x": stat /nope/x: no such file or directory', 127],
      ['exec failed: unable to start container process: exec: "/etc/passwd": permission denied', 126],
      ['exec failed: unable to start container process: chdir to cwd ("/nonexist") set in config.json failed: no such file or directory', 126],
    ];
    for (const [msg, code] of cases) {
      const err = translateRuntimeError('exec', 'c1', msg);
      assert.ok(err instanceof ContainerCommandError, msg);
      assert.equal(err.kind, 'invalidParameter');
      assert.equal(err.exitCode, code, msg);
      assert.equal(err.message, `OCI runtime exec failed: ${msg}: unknown`);
    }
    const caps = translateRuntimeError('exec', 'c1', 'exec failed: unable to start container process: unable to apply caps: operation not permitted');
    assert.ok(!(caps instanceof ContainerCommandError));
    assert.equal(caps.kind, 'system');
    assert.equal(caps.message, 'OCI runtime exec failed: exec failed: unable to start container process: unable to apply caps: operation not permitted: unknown');
    assert.equal(translateRuntimeError('exec', 'c1', 'exec failed: cannot exec in a stopped container').kind, 'conflict');
  });

  it('sorts the lifecycle messages into notFound, conflict and invalidParameter', () => {
    const cases: Array<[string, string]> = [
      ['container does not exist', 'notFound'],
      ['container not running', 'conflict'],
      ['container not paused', 'conflict'],
      ['cannot start a container that has stopped', 'conflict'],
      ['cannot delete container x8 that is not stopped: running', 'conflict'],
      ['runc create failed: container with given ID already exists', 'conflict'],
      ['unknown signal "FOO"', 'invalidParameter'],
      ['unable to signal init: invalid argument', 'invalidParameter'],
      ['unable to freeze', 'system'],
    ];
    for (const [msg, kind] of cases) {
      const err = translateRuntimeError('kill', 'x8', msg);
      assert.ok(err instanceof RuntimeError, msg);
      assert.equal(err.kind, kind, msg);
      assert.equal(err.runtimeMessage, msg);
      assert.equal(err.operation, 'kill');
    }
    assert.equal(translateRuntimeError('state', 'x8', 'container does not exist').message, 'no such container in the runtime: x8');
  });

  it('keeps a missing file outside start as a plain runtime error', () => {
    const err = translateRuntimeError('update', 'c1', 'open /sys/fs/cgroup/x: no such file or directory');
    assert.ok(!(err instanceof ContainerCommandError));
    assert.equal(err.kind, 'system');
  });
});
