// POST /build from dockerode (a gzip context packed from a folder, and a tar stream with build
// args), and what the classic builder answers on POST /build/prune and in GET /system/df: an
// empty prune that leaves the builder's cache (its intermediate images) alone, no build cache
// records (/work/notes/build-reference.md, 9).
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import Docker from 'dockerode';
import { tarOf } from '../../helpers/image-archives.js';
import { build, builtId, inspectImage, runImage, startBuildDaemon, steps, writeContext, type BuildDaemon } from './build-daemon.js';

interface Progress {
  stream?: string;
  aux?: { ID: string };
  error?: string;
  errorDetail?: { message: string; code?: number };
}

function follow(docker: Docker, stream: NodeJS.ReadableStream): Promise<Progress[]> {
  return new Promise((resolve, reject) => docker.modem.followProgress(stream, (err: Error | null, out: Progress[]) => (err ? reject(err) : resolve(out))));
}

describe('POST /build from dockerode; build cache pruning', () => {
  let bd: BuildDaemon;
  let docker: Docker;
  before(async () => {
    bd = await startBuildDaemon();
    docker = new Docker({ socketPath: bd.socket });
  });
  after(async () => {
    await bd?.stop();
  });

  test('dockerode buildImage from a folder (sent as gzip) and from a tar stream with build args', async () => {
    const ctx = writeContext(bd, 'dockerode', { 'f.txt': 'from-dockerode\n', Dockerfile: 'FROM busybox\nCOPY f.txt /f.txt\nCMD ["cat", "/f.txt"]\n' });
    let out = await follow(docker, await docker.buildImage({ context: ctx, src: ['Dockerfile', 'f.txt'] }, { t: 'dockerode:1' }));
    assert.equal(out.find((p) => p.error), undefined, JSON.stringify(out));
    const id = out.find((p) => p.aux)?.aux?.ID;
    assert.equal((await inspectImage(bd, 'dockerode:1')).Id, id);
    assert.ok(out.some((p) => p.stream === 'Successfully tagged dockerode:1\n'));
    assert.equal(await runImage(bd, 'dockerode:1'), 'from-dockerode\n');

    const tar = await tarOf([{ name: 'Dockerfile', content: 'FROM busybox\nARG WHO\nRUN echo "hi $WHO" > /hi\n' }]);
    out = await follow(docker, await docker.buildImage(Readable.from([tar]), { t: 'dockerode:2', buildargs: { WHO: 'node' }, nocache: true, forcerm: true }));
    assert.equal(out.find((p) => p.error), undefined, JSON.stringify(out));
    assert.equal(await runImage(bd, 'dockerode:2', ['cat', '/hi']), 'hi node\n');

    // a failed build: the error is the last record
    const failing = await tarOf([{ name: 'Dockerfile', content: 'FROM busybox\nRUN exit 7\n' }]);
    out = await follow(docker, await docker.buildImage(Readable.from([failing]), { forcerm: true }));
    const message = "The command '/bin/sh -c exit 7' returned a non-zero code: 7";
    assert.deepEqual(out.at(-1), { errorDetail: { code: 7, message }, error: message });
  });

  test('POST /build/prune: nothing to prune for the classic builder, whose cache stays', async () => {
    const ctx = writeContext(bd, 'prune', { Dockerfile: 'FROM busybox\nRUN echo cached > /c\n' });
    const first = await build(bd, ctx, ['-t', 'prune:1']);
    assert.equal(first.code, 0, first.stderr);
    const since = (Date.now() / 1000).toFixed(3);
    for (const query of ['', '?all=1&keep-storage=0', `?filters=${encodeURIComponent('{"until":["10m"]}')}`]) {
      const res = await bd.request('POST', `/v1.41/build/prune${query}`);
      assert.equal(res.status, 200, res.body);
      assert.equal(res.headers['content-type'], 'application/json');
      assert.equal(res.body, '{"CachesDeleted":null,"SpaceReclaimed":0}\n');
    }
    const cli = await bd.docker(['builder', 'prune', '-f']);
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(cli.stdout, 'Total reclaimed space: 0B\n');
    const events = await bd.docker(['events', '--since', since, '--until', String(Math.ceil(Date.now() / 1000)), '--format', '{{.Type}} {{.Action}} {{json .Actor.Attributes}}']);
    // one for each of the three requests and the CLI's
    assert.equal(events.stdout, 'builder prune {"reclaimed":"0"}\n'.repeat(4));
    const df = (await bd.request('GET', '/v1.41/system/df')).json() as { BuildCache: unknown; BuilderSize: number };
    assert.equal(df.BuildCache, null);
    assert.equal(df.BuilderSize, 0);
    // the intermediate images were not pruned: the same build is all cache
    const again = await build(bd, ctx, ['-t', 'prune:2']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(steps(again.stdout).length, 2);
    assert.match(again.stdout, /^ ---> Using cache$/m);
    assert.equal(builtId(again.stdout), builtId(first.stdout));
  });
});
