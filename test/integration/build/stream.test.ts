// POST /build's JSON stream on the raw API, record by record, as Docker Engine 20.10 writes it
// (/work/notes/build-reference.md, 1): each record a JSON object and \r\n, a step's line and its
// newline separate, the containers of RUN and of the metadata steps named and removed, the aux
// record before the result; and the query's variants: q, rm=0, labels, several t, buildargs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { tarOf } from '../../helpers/image-archives.js';
import { containerIds, inspectImage, postBuild, records, startBuildDaemon, type BuildDaemon, type BuildRecord } from './build-daemon.js';

const DOCKERFILE = 'FROM busybox\nRUN echo out-line\nENV a=b\nCOPY hello.txt /hello.txt\nCMD ["cat", "/hello.txt"]\n';

/** The records with IDs replaced: <id> for 12 hex digits, <ID> for sha256:<64>. */
function shape(recs: BuildRecord[]): unknown[] {
  return JSON.parse(JSON.stringify(recs).replace(/sha256:[0-9a-f]{64}/g, '<ID>').replace(/\b[0-9a-f]{12}\b/g, '<id>')) as unknown[];
}

describe('POST /build: the stream', () => {
  let bd: BuildDaemon;
  let context: Buffer;
  before(async () => {
    bd = await startBuildDaemon();
    context = await tarOf([
      { name: 'Dockerfile', content: DOCKERFILE },
      { name: 'hello.txt', content: 'hello\n' },
    ]);
  });
  after(async () => {
    await bd?.stop();
  });

  test('a build of five steps, record by record', async () => {
    const res = await postBuild(bd, context, 't=stream:1&rm=1');
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/json');
    const recs = records(res.body);
    assert.deepEqual(shape(recs), [
      { stream: 'Step 1/5 : FROM busybox' },
      { stream: '\n' },
      { stream: ' ---> <id>\n' },
      { stream: 'Step 2/5 : RUN echo out-line' },
      { stream: '\n' },
      { stream: ' ---> Running in <id>\n' },
      { stream: 'out-line\n' },
      { stream: 'Removing intermediate container <id>\n' },
      { stream: ' ---> <id>\n' },
      { stream: 'Step 3/5 : ENV a=b' },
      { stream: '\n' },
      { stream: ' ---> Running in <id>\n' },
      { stream: 'Removing intermediate container <id>\n' },
      { stream: ' ---> <id>\n' },
      { stream: 'Step 4/5 : COPY hello.txt /hello.txt' },
      { stream: '\n' },
      { stream: ' ---> <id>\n' },
      { stream: 'Step 5/5 : CMD ["cat", "/hello.txt"]' },
      { stream: '\n' },
      { stream: ' ---> Running in <id>\n' },
      { stream: 'Removing intermediate container <id>\n' },
      { stream: ' ---> <id>\n' },
      { aux: { ID: '<ID>' } },
      { stream: 'Successfully built <id>\n' },
      { stream: 'Successfully tagged stream:1\n' },
    ]);
    // the container named is the one removed; the ID shown is the image's
    assert.equal(recs[5].stream!.slice(-13, -1), recs[7].stream!.slice(-13, -1));
    const id = recs[22].aux!.ID;
    assert.equal(recs[23].stream, `Successfully built ${id.slice(7, 19)}\n`);
    assert.equal(recs[21].stream, ` ---> ${id.slice(7, 19)}\n`);
    assert.equal((await inspectImage(bd, 'stream:1')).Id, id);
    // as sent: <, > and & escaped the way Go's encoder does
    const amp = await postBuild(bd, await tarOf([{ name: 'Dockerfile', content: 'FROM busybox\nRUN echo "<a&b>" > /x\n' }]), 'rm=1');
    assert.ok(amp.body.includes('{"stream":"Step 2/2 : RUN echo \\"\\u003ca\\u0026b\\u003e\\" \\u003e /x"}\r\n'), amp.body);
  });

  test('RUN: stderr in red, each chunk as it comes', async () => {
    const res = await postBuild(bd, await tarOf([{ name: 'Dockerfile', content: 'FROM busybox\nRUN echo err-line >&2\n' }]), 'rm=1');
    const recs = records(res.body);
    assert.deepEqual(recs[6], { stream: '\u001b[91merr-line\n\u001b[0m' });
    assert.match(recs[7].stream ?? '', /^Removing intermediate container [0-9a-f]{12}\n$/);
  });

  test('q=1: one record with the image ID; no tagged line', async () => {
    const res = await postBuild(bd, context, 't=stream:q&q=1');
    assert.equal(res.status, 200);
    const id = (await inspectImage(bd, 'stream:q')).Id;
    assert.equal(res.body, `{"stream":"${id}\\n"}\r\n`);
  });

  test('rm=0: the containers stay, those of RUN exited, those of the metadata steps never started', async () => {
    const before = new Set(await containerIds(bd));
    const res = await postBuild(bd, context, 't=stream:rm0&rm=0&nocache=1');
    assert.equal(res.status, 200);
    const recs = records(res.body);
    assert.equal(recs.filter((r) => r.stream?.startsWith('Removing intermediate container')).length, 0, res.body);
    const named = recs.flatMap((r) => /^ ---> Running in ([0-9a-f]{12})\n$/.exec(r.stream ?? '')?.[1] ?? []);
    assert.equal(named.length, 3);
    const left = (await containerIds(bd)).filter((id) => !before.has(id));
    assert.deepEqual(left.map((id) => id.slice(0, 12)).sort(), [...named].sort());
    const states = [];
    for (const id of named) {
      const c = (await bd.request('GET', `/containers/${id}/json`)).json() as { State: { Status: string; ExitCode: number }; Config: { Cmd: string[] } };
      states.push([c.State.Status, c.State.ExitCode, c.Config.Cmd]);
    }
    assert.deepEqual(states, [
      ['exited', 0, ['/bin/sh', '-c', 'echo out-line']],
      ['created', 0, ['/bin/sh', '-c', '#(nop) ', 'ENV a=b']],
      ['created', 0, ['/bin/sh', '-c', '#(nop) ', 'CMD ["cat" "/hello.txt"]']],
    ]);
    for (const id of left) await bd.request('DELETE', `/containers/${id}?force=1`);
  });

  test('labels add a last LABEL step; each t gets its line; buildargs null leaves the ARG unset', async () => {
    const ctx = await tarOf([{ name: 'Dockerfile', content: 'FROM busybox\nARG UNSET\nRUN echo "[${UNSET-unset}]" > /arg\n' }]);
    const query = `t=stream:l1&t=stream:l2&labels=${encodeURIComponent('{"lk":"lv"}')}&buildargs=${encodeURIComponent('{"UNSET":null}')}`;
    const res = await postBuild(bd, ctx, query);
    assert.equal(res.status, 200, res.body);
    const text = records(res.body).map((r) => r.stream ?? '').join('');
    assert.match(text, /^Step 4\/4 : LABEL lk=lv\n/m);
    assert.match(text, /Successfully tagged stream:l1\nSuccessfully tagged stream:l2\n$/);
    assert.ok(!text.includes('[Warning]'), text);
    const img = await inspectImage(bd, 'stream:l2');
    assert.deepEqual(img.Config.Labels, { lk: 'lv' });
    const run = await bd.docker(['run', '--rm', 'stream:l1', 'cat', '/arg']);
    assert.equal(run.stdout, '[unset]\n', run.stderr);
  });

  test('ONBUILD triggers in the stream: the plural a record of its own', async () => {
    const parent = await postBuild(bd, await tarOf([{ name: 'Dockerfile', content: 'FROM busybox\nONBUILD RUN echo one\nONBUILD RUN echo two\n' }]), 't=stream:onbuild');
    assert.equal(parent.status, 200);
    const res = await postBuild(bd, await tarOf([{ name: 'Dockerfile', content: 'FROM stream:onbuild\n' }]), 'rm=1');
    assert.deepEqual(shape(records(res.body)), [
      { stream: 'Step 1/1 : FROM stream:onbuild' },
      { stream: '\n' },
      { stream: '# Executing 2 build trigger' },
      { stream: 's' },
      { stream: '\n' },
      { stream: ' ---> Running in <id>\n' },
      { stream: 'one\n' },
      { stream: 'Removing intermediate container <id>\n' },
      { stream: ' ---> Running in <id>\n' },
      { stream: 'two\n' },
      { stream: 'Removing intermediate container <id>\n' },
      { stream: ' ---> <id>\n' },
      { aux: { ID: '<ID>' } },
      { stream: 'Successfully built <id>\n' },
    ]);
  });

  test("docker-py's query: booleans as True and False, Content-Type application/tar", async () => {
    const query = 't=stream:py&q=False&nocache=True&rm=True&forcerm=False&pull=False';
    const res = await postBuild(bd, context, query, { 'Content-Type': 'application/tar' });
    assert.equal(res.status, 200, res.body);
    const recs = records(res.body);
    assert.ok(recs.length > 1, 'not quiet');
    assert.ok(!recs.some((r) => r.stream === ' ---> Using cache\n'), 'nocache=True');
    assert.ok(recs.some((r) => r.stream?.startsWith('Removing intermediate container')), 'rm=True');
    assert.equal(recs.at(-1)?.stream, 'Successfully tagged stream:py\n');
  });
});
