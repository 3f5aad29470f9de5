// The offline busybox image the container tests run: it loads, lists and inspects as Docker Hub's would.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { extract, type Header } from 'tar-stream';
import { Berthd } from '../../helpers/berthd.js';
import { BUSYBOX_PATH, busyboxImageArchive, busyboxLayer, loadBusybox } from '../../helpers/busybox-image.js';

let d: Berthd;
let id: string;
before(async () => {
  d = await Berthd.start();
  id = await loadBusybox(d);
});
after(() => d.stop());

describe('busybox test image', () => {
  it('is listed by docker images', async () => {
    const r = await d.docker(['images', '--no-trunc', '--format', '{{.Repository}}:{{.Tag}} {{.ID}}']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), `busybox:latest ${id}`);
  });

  it('has the Cmd and Env of Docker Hub busybox', async () => {
    const r = await d.docker(['image', 'inspect', '--format', '{{json .Config.Cmd}} {{json .Config.Env}} {{.Os}}', 'busybox']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), `["sh"] ["${BUSYBOX_PATH}"] linux`);
  });

  it('is one layer with the busybox binary, its applets as links, users and directories', async () => {
    const r = await d.request('GET', '/images/busybox/json');
    const inspect = r.json() as { RootFS: { Layers: string[] }; Size: number };
    assert.equal(inspect.RootFS.Layers.length, 1);
    assert.ok(inspect.Size > 500_000, `size ${inspect.Size}`);

    const entries = new Map<string, Header>();
    const x = extract();
    x.on('entry', (header, stream, next) => {
      entries.set(header.name, header);
      stream.on('end', next);
      stream.resume();
    });
    Readable.from([await busyboxLayer()]).pipe(x);
    await once(x, 'finish');
    assert.equal(entries.get('bin/busybox')?.mode, 0o755);
    for (const applet of ['sh', 'cat', 'grep', 'id', 'sleep', 'env']) {
      assert.deepEqual([entries.get(`bin/${applet}`)?.type, entries.get(`bin/${applet}`)?.linkname], ['symlink', 'busybox'], applet);
    }
    assert.equal(entries.get('tmp/')?.mode, 0o1777);
    assert.deepEqual([entries.get('home/test/')?.uid, entries.get('home/test/')?.gid], [1000, 1000]);
    assert.ok(entries.has('root/') && entries.has('etc/passwd') && entries.has('etc/group'));
  });

  it('loads under another tag with the same ID', async () => {
    const r = await d.request('POST', '/images/load?quiet=1', { body: await busyboxImageArchive('busybox:other') });
    assert.equal(r.status, 200, r.body);
    const inspect = (await d.request('GET', '/images/busybox:other/json')).json() as { Id: string };
    assert.equal(inspect.Id, id);
  });
});
