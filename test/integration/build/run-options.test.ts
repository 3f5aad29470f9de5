// What a build's RUN steps run with, from the build's options (dockerd's hostConfigFromOptions):
// memory and CPU limits, the network mode, extra hosts and the /dev/shm size, seen from inside the
// step; and the 28.x CLI with DOCKER_BUILDKIT=0 sends them as the query's memory, cpushares,
// networkmode, extrahosts and shmsize.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { build, startBuildDaemon, writeContext, type BuildDaemon } from './build-daemon.js';

describe('docker build: what RUN steps run with', () => {
  let bd: BuildDaemon;
  before(async () => {
    bd = await startBuildDaemon();
  });
  after(async () => {
    await bd?.stop();
  });

  test('--memory, --cpu-shares, --network none, --add-host and --shm-size reach the step', async () => {
    const script = [
      'cat /sys/fs/cgroup/memory/memory.limit_in_bytes',
      'cat /sys/fs/cgroup/cpu/cpu.shares',
      'echo links=$(ip -o link | wc -l)',
      'grep hh /etc/hosts',
      "df -k /dev/shm | awk 'NR==2 {print \"shm=\" $2}'",
    ].join('; ');
    const ctx = writeContext(bd, 'run-options', { Dockerfile: `FROM busybox\nRUN ${script}\n` });
    const r = await build(bd, ctx, ['--no-cache', '--memory', '64m', '--cpu-shares', '512', '--network', 'none', '--add-host', 'hh:1.2.3.4', '--shm-size', '32m']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^67108864$/m);
    assert.match(r.stdout, /^512$/m);
    assert.match(r.stdout, /^links=1$/m, 'only the loopback under --network none');
    assert.match(r.stdout, /^1\.2\.3\.4\s+hh$/m);
    assert.match(r.stdout, /^shm=32768$/m);
  });
});
