// `docker-compose build` (Debian's 1.29) of a project of two services, each with its own context:
// one plain, one with a named Dockerfile, build args and labels. Compose builds through the docker
// CLI by default, and through docker-py with COMPOSE_DOCKER_CLI_BUILD=0; both must give the two
// images (/work/notes/build-reference.md, 10).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { inspectImage, runImage, startBuildDaemon, writeContext, type BuildDaemon } from './build-daemon.js';

const PROJECT = 'berthbuild';

const COMPOSE_FILE = `version: "3.8"
services:
  web:
    build: ./web
    image: berthbuild/web:1
  worker:
    build:
      context: ./worker
      dockerfile: Dockerfile.w
      args:
        KIND: special
      labels:
        role: worker
`;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

describe('docker-compose build', () => {
  let bd: BuildDaemon;
  let dir: string;

  function compose(env: NodeJS.ProcessEnv, ...args: string[]): Promise<Result> {
    return new Promise((resolve) => {
      const options = {
        cwd: dir,
        env: { ...process.env, DOCKER_HOST: bd.dockerHost, DOCKER_CONFIG: path.join(bd.dir, 'docker-config'), DOCKER_BUILDKIT: '0', ...env },
        timeout: 180_000,
      };
      execFile('docker-compose', ['-p', PROJECT, ...args], options, (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
        resolve({ code, stdout, stderr });
      });
    });
  }

  before(async () => {
    bd = await startBuildDaemon();
    dir = writeContext(bd, 'project', {
      'docker-compose.yml': COMPOSE_FILE,
      'web/Dockerfile': 'FROM busybox\nRUN echo web > /who\nCMD ["cat", "/who"]\n',
      'worker/Dockerfile.w': 'FROM busybox\nARG KIND=default\nRUN echo "worker-$KIND" > /who\nCMD ["cat", "/who"]\n',
    });
  });
  after(async () => {
    await bd?.stop();
  });

  async function assertBuilt(): Promise<void> {
    assert.equal(await runImage(bd, 'berthbuild/web:1'), 'web\n');
    assert.equal(await runImage(bd, `${PROJECT}_worker:latest`), 'worker-special\n');
    assert.deepEqual((await inspectImage(bd, `${PROJECT}_worker`)).Config.Labels, { role: 'worker' });
  }

  test('through the docker CLI (compose\'s default): both services\' images, with the build args and labels', async () => {
    const r = await compose({ COMPOSE_DOCKER_CLI_BUILD: '1' }, 'build');
    assert.equal(r.code, 0, r.stderr);
    const out = r.stdout + r.stderr;
    assert.match(out, /^Successfully tagged berthbuild\/web:1$/m);
    assert.match(out, new RegExp(`^Successfully tagged ${PROJECT}_worker:latest$`, 'm'));
    // the labels: a last LABEL step
    assert.match(out, /^Step 5\/5 : LABEL role=worker$/m);
    await assertBuilt();
  });

  test('through docker-py (COMPOSE_DOCKER_CLI_BUILD=0), without the cache', async () => {
    const before = [(await inspectImage(bd, 'berthbuild/web:1')).Id, (await inspectImage(bd, `${PROJECT}_worker`)).Id];
    const r = await compose({ COMPOSE_DOCKER_CLI_BUILD: '0' }, 'build', '--no-cache');
    assert.equal(r.code, 0, r.stderr);
    const out = r.stdout + r.stderr;
    assert.match(out, /^Successfully tagged berthbuild\/web:1$/m);
    assert.ok(!out.includes('Using cache'), out);
    await assertBuilt();
    const after = [(await inspectImage(bd, 'berthbuild/web:1')).Id, (await inspectImage(bd, `${PROJECT}_worker`)).Id];
    assert.notEqual(after[0], before[0]);
    assert.notEqual(after[1], before[1]);
  });
});
