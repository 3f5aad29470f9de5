// Builds that fail, as Docker Engine 20.10 fails them (/work/notes/build-reference.md, 2): a RUN
// that exits non-zero (its code in the error and as the CLI's exit status; the failed container
// left unless --force-rm), errors found before the stream starts (a status and a message) and
// errors during it (an errorDetail record that ends it, status 200); no image tagged, no
// container left by a failed step other than a failed RUN's; a build whose client goes away
// stops its running step and removes its container.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { tarOf } from '../../helpers/image-archives.js';
import { build, containerIds, postBuild, records, startBuildDaemon, writeContext, type BuildDaemon } from './build-daemon.js';

describe('docker build: failures', () => {
  let bd: BuildDaemon;
  before(async () => {
    bd = await startBuildDaemon();
  });
  after(async () => {
    await bd?.stop();
  });

  const contextOf = (dockerfile: string, files: Record<string, string> = {}) =>
    tarOf([{ name: 'Dockerfile', content: dockerfile }, ...Object.entries(files).map(([name, content]) => ({ name, content }))]);

  test("a RUN that exits 3: its output, then the error with code 3; the CLI exits 3; the failed container stays, as dockerd leaves it", async () => {
    const before = new Set(await containerIds(bd));
    const ctx = writeContext(bd, 'run-fails', { Dockerfile: 'FROM busybox\nRUN echo before; exit 3\nRUN echo never\n' });
    const r = await build(bd, ctx, ['-t', 'fails:1']);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stdout, /^Step 2\/3 : RUN echo before; exit 3\n ---> Running in ([0-9a-f]{12})\nbefore\n$/m);
    assert.ok(!r.stdout.includes('never') && !r.stdout.includes('Removing intermediate'), r.stdout);
    assert.match(r.stderr, /^The command '\/bin\/sh -c echo before; exit 3' returned a non-zero code: 3$/m);
    assert.equal((await bd.request('GET', '/images/fails:1/json')).status, 404);
    const left = (await containerIds(bd)).filter((id) => !before.has(id));
    assert.equal(left.length, 1);
    assert.equal(left[0].slice(0, 12), /Running in ([0-9a-f]{12})/.exec(r.stdout)![1]);
    const c = (await bd.request('GET', `/containers/${left[0]}/json`)).json() as { State: { Status: string; ExitCode: number }; Config: { Cmd: string[] } };
    assert.deepEqual([c.State.Status, c.State.ExitCode, c.Config.Cmd], ['exited', 3, ['/bin/sh', '-c', 'echo before; exit 3']]);
    assert.equal((await bd.request('DELETE', `/containers/${left[0]}`)).status, 204);
  });

  test('--force-rm: the failed container is removed too; docker ps -a shows no build container', async () => {
    const before = await bd.docker(['ps', '-a', '-q', '--no-trunc']);
    const ctx = writeContext(bd, 'force-rm', { Dockerfile: 'FROM busybox\nENV x=1\nRUN echo before; exit 3\n' });
    const r = await build(bd, ctx, ['--force-rm', '-t', 'fails:2']);
    assert.equal(r.code, 3, r.stderr);
    const id = /Step 3\/3 : RUN echo before; exit 3\n ---> Running in ([0-9a-f]{12})\nbefore\n/.exec(r.stdout)?.[1];
    assert.ok(id, r.stdout);
    assert.match(r.stdout, new RegExp(`before\\nRemoving intermediate container ${id}\\n$`));
    assert.equal((await bd.docker(['ps', '-a', '-q', '--no-trunc'])).stdout, before.stdout);
    assert.equal((await bd.request('GET', '/images/fails:2/json')).status, 404);
  });

  test('raw API: the error record ends the stream, with the code; exec form in the message joined by spaces', async () => {
    let res = await postBuild(bd, await contextOf('FROM busybox\nRUN echo before; exit 3\n'), 'forcerm=1');
    assert.equal(res.status, 200);
    let recs = records(res.body);
    const message = "The command '/bin/sh -c echo before; exit 3' returned a non-zero code: 3";
    assert.deepEqual(recs.at(-1), { errorDetail: { code: 3, message }, error: message });
    assert.deepEqual(recs.at(-2)?.stream?.replace(/[0-9a-f]{12}/, '<id>'), 'Removing intermediate container <id>\n');
    assert.ok(!recs.some((r) => r.aux !== undefined));
    res = await postBuild(bd, await contextOf('FROM busybox\nRUN ["sh", "-c", "exit 4"]\n'), 'forcerm=1');
    recs = records(res.body);
    assert.deepEqual(recs.at(-1)?.errorDetail, { code: 4, message: "The command 'sh -c exit 4' returned a non-zero code: 4" });
    // quiet: the output kept back is sent when the build fails
    res = await postBuild(bd, await contextOf('FROM busybox\nRUN echo kept-back; exit 5\n'), 'q=1&forcerm=1');
    recs = records(res.body);
    assert.equal(recs[0].stream, 'Step 1/2 : FROM busybox');
    assert.ok(recs.some((r) => r.stream === 'kept-back\n'), res.body);
    assert.equal(recs.at(-1)?.errorDetail?.code, 5);
  });

  test('errors found before the build starts: a status and a message, nothing streamed', async () => {
    const cases: Array<[string, Buffer, string, number, string]> = [
      ['unknown instruction', await contextOf('FROM busybox\nFOO bar\n'), '', 400, 'dockerfile parse error line 2: unknown instruction: FOO'],
      ['unknown flag', await contextOf('FROM busybox\nCOPY --bogus=1 a /\n'), '', 400, 'dockerfile parse error line 2: Unknown flag: bogus'],
      ['empty Dockerfile', await contextOf(''), '', 400, 'the Dockerfile (Dockerfile) cannot be empty'],
      ['only comments', await contextOf('# nothing\n'), '', 400, 'failed to parse Dockerfile: file with no instructions'],
      ['no FROM', await contextOf('RUN true\n'), '', 400, 'no build stage in current context'],
      ['unknown target', await contextOf('FROM busybox AS a\nRUN true\n'), 'target=nope', 400, 'failed to reach build target nope in Dockerfile'],
      ['bad stage name', await contextOf('FROM busybox AS 1a\n'), '', 400, 'dockerfile parse error line 1: invalid name for build stage: "1a", name can\'t start with a number or contain symbols'],
      ['ONBUILD FROM', await contextOf('FROM busybox\nONBUILD FROM busybox\n'), '', 400, "dockerfile parse error line 2: FROM isn't allowed as an ONBUILD trigger"],
      ['HEALTHCHECK retries', await contextOf('FROM busybox\nHEALTHCHECK --retries=-1 CMD true\n'), '', 400, 'dockerfile parse error line 2: --retries must be at least 1 (not -1)'],
      ['ENV without value', await contextOf('FROM busybox\nENV ONLYKEY\n'), '', 400, 'failed to parse Dockerfile: ENV must have two arguments'],
      ['missing Dockerfile', await contextOf('FROM busybox\n'), 'dockerfile=Nope.df', 500, 'Cannot locate specified Dockerfile: Nope.df'],
      ['empty body', Buffer.alloc(0), '', 500, 'Cannot locate specified Dockerfile: Dockerfile'],
      ['bad build args', await contextOf('FROM busybox\n'), 'buildargs=notjson', 400, "error reading build args: invalid character 'o' in literal null (expecting 'u')"],
      ['bad tag', await contextOf('FROM busybox\n'), 't=Bad:Tag', 500, 'invalid reference format: repository name must be lowercase'],
    ];
    for (const [what, body, query, status, message] of cases) {
      const res = await postBuild(bd, body, query);
      assert.equal(res.status, status, `${what}: ${res.body}`);
      assert.equal(res.headers['content-type'], 'application/json', what);
      assert.deepEqual(res.json(), { message }, what);
    }
    // the CLI shows it as the daemon's answer
    const ctx = writeContext(bd, 'parse-error', { Dockerfile: 'FROM busybox\nFOO bar\n' });
    const r = await build(bd, ctx);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^Error response from daemon: dockerfile parse error line 2: unknown instruction: FOO$/m);
  });

  test('errors during the build: an errorDetail record after the steps before it, no container left', async () => {
    const before = new Set(await containerIds(bd));
    const cases: Array<[string, string, string]> = [
      ['FROM busybox\nENV x=1\nCOPY nothere.txt /\n', 'Step 3/3 : COPY nothere.txt /', 'COPY failed: file not found in build context or excluded by .dockerignore: stat nothere.txt: file does not exist'],
      ['FROM busybox\nCOPY ../hello.txt /x\n', 'Step 2/2 : COPY ../hello.txt /x', 'COPY failed: forbidden path outside the build context: ../hello.txt ()'],
      ['FROM busybox\nCOPY *.nomatch /dest/\n', 'Step 2/2 : COPY *.nomatch /dest/', 'COPY failed: no source files were specified'],
      ['FROM busybox\nCOPY hello.txt Dockerfile /dest\n', 'Step 2/2 : COPY hello.txt Dockerfile /dest', 'When using COPY with more than one source file, the destination must be a directory and end with a /'],
      ['FROM busybox\nCOPY http://127.0.0.1:1/x /x\n', 'Step 2/2 : COPY http://127.0.0.1:1/x /x', "COPY failed: source can't be a URL for COPY"],
      ['FROM busybox\nRUN --mount=type=cache,target=/x true\n', 'Step 2/2 : RUN --mount=type=cache,target=/x true', 'the --mount option requires BuildKit. Refer to https://docs.docker.com/go/buildkit/ to learn how to build images with BuildKit enabled'],
      ['FROM busybox\nSTOPSIGNAL NOPE\n', 'Step 2/2 : STOPSIGNAL NOPE', 'Invalid signal: NOPE'],
      ['FROM busybox\nEXPOSE abc\n', 'Step 2/2 : EXPOSE abc', 'Invalid containerPort: abc'],
      ['FROM busybox\nCOPY --from=1 /bin/sh /x\nFROM busybox\n', 'Step 2/3 : COPY --from=1 /bin/sh /x', 'invalid from flag value 1: index out of bounds'],
      ['FROM busybox\nADD --chown=nobody hello.txt /x\n', 'Step 2/2 : ADD --chown=nobody hello.txt /x', 'unable to convert uid/gid chown string to host mapping: can\'t find gid for group nobody: no such group: nobody'],
      ['FROM 127.0.0.1:5999/nope:1\n', 'Step 1/1 : FROM 127.0.0.1:5999/nope:1', 'Get "http://127.0.0.1:5999/v2/": dial tcp 127.0.0.1:5999: connect: connection refused'],
    ];
    for (const [dockerfile, lastStep, message] of cases) {
      const res = await postBuild(bd, await contextOf(dockerfile, { 'hello.txt': 'hi\n' }), 't=fails:inband');
      assert.equal(res.status, 200, `${lastStep}: ${res.body}`);
      const recs = records(res.body);
      assert.deepEqual(recs.at(-1), { errorDetail: { message }, error: message }, lastStep);
      const stepLines = recs.filter((r) => r.stream?.startsWith('Step '));
      assert.equal(stepLines.at(-1)?.stream, lastStep);
      assert.equal(recs.at(-2)?.stream, '\n', lastStep);
    }
    assert.deepEqual((await containerIds(bd)).filter((id) => !before.has(id)), []);
    assert.equal((await bd.request('GET', '/images/fails:inband/json')).status, 404);
  });

  test('a RUN as a user the image does not have: its container is made, fails to start, and stays', async () => {
    const before = new Set(await containerIds(bd));
    const res = await postBuild(bd, await contextOf('FROM busybox\nUSER nosuch\nRUN id\n'), 'rm=1');
    const recs = records(res.body);
    const message = 'unable to find user nosuch: no matching entries in passwd file';
    assert.deepEqual(recs.at(-1), { errorDetail: { message }, error: message });
    const id = /^ ---> Running in ([0-9a-f]{12})\n$/.exec(recs.at(-2)?.stream ?? '')?.[1];
    assert.ok(id, res.body);
    const left = (await containerIds(bd)).filter((c) => !before.has(c));
    assert.deepEqual(left.map((c) => c.slice(0, 12)), [id]);
    const c = (await bd.request('GET', `/containers/${left[0]}/json`)).json() as { State: { Status: string } };
    assert.equal(c.State.Status, 'created');
    assert.equal((await bd.request('DELETE', `/containers/${left[0]}`)).status, 204);
  });

  test('a stage name used twice fails after the first stage', async () => {
    const res = await postBuild(bd, await contextOf('FROM busybox AS a\nFROM busybox AS a\n'), '');
    const recs = records(res.body);
    assert.ok(recs.at(-2)?.aux, res.body);
    assert.deepEqual(recs.at(-1), { errorDetail: { message: 'a stage name already used' }, error: 'a stage name already used' });
  });

  test('a client that goes away mid-RUN cancels the build: the step is killed and its container removed', async () => {
    const before = new Set(await containerIds(bd));
    const context = await contextOf('FROM busybox\nRUN echo started; sleep 60\n');
    await new Promise<void>((resolve, reject) => {
      const req = http.request({ socketPath: bd.socket, method: 'POST', path: '/v1.41/build?t=cancelled:1', headers: { 'Content-Type': 'application/x-tar' } }, (res) => {
        res.on('data', (chunk: Buffer) => {
          // the step runs: the client goes
          if (chunk.toString().includes('started')) {
            req.destroy();
            resolve();
          }
        });
        res.on('error', () => {});
      });
      req.on('error', () => {});
      req.end(context);
      setTimeout(() => reject(new Error('the RUN step never started')), 20_000).unref();
    });
    const deadline = Date.now() + 15_000;
    let left = (await containerIds(bd)).filter((id) => !before.has(id));
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      left = (await containerIds(bd)).filter((id) => !before.has(id));
    }
    assert.deepEqual(left, [], 'the cancelled step\'s container is gone');
    assert.equal((await bd.request('GET', '/images/cancelled:1/json')).status, 404);
  });
});
