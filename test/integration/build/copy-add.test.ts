// docker build's COPY and ADD: where files land (a file renamed or put in a directory, wildcards,
// several sources, a directory's contents), their owners and modes, ADD's extraction of local tars
// and its downloads from a URL (served by the test on the daemon's loopback), each checked in a
// container of the image; and the commands the history records for them. As Docker Engine 20.10
// does it (/work/notes/build-reference.md, 4.2 and 4.4).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { tarOf } from '../../helpers/image-archives.js';
import { build, createdBy, inspectImage, postBuild, records, runImage, serveFiles, startBuildDaemon, writeContext, type BuildDaemon } from './build-daemon.js';

const HASH = '[0-9a-f]{64}';
/** A history line as a pattern: the text as is, with <H> for a 64-hex hash. */
const step = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/<H>/g, HASH)}$`);
const hashOf = (line: string) => /([0-9a-f]{64}) in /.exec(line)?.[1];

describe('docker build: COPY and ADD', () => {
  let bd: BuildDaemon;
  let busyboxLayers: number;
  before(async () => {
    bd = await startBuildDaemon();
    busyboxLayers = (await inspectImage(bd, 'busybox')).RootFS.Layers.length;
  });
  after(async () => {
    await bd?.stop();
  });

  test('COPY: a file renamed or into a directory, wildcards, several sources, a directory\'s contents, modes kept, --chown', async () => {
    const ctx = writeContext(bd, 'copy', {
      'f1.txt': 'one\n',
      'f2.txt': 'two\n',
      'other.md': 'other\n',
      'dir/d1': 'd1\n',
      'dir/sub/s1': 's1\n',
      'exec.sh': { content: '#!/bin/sh\necho run\n', mode: 0o755 },
      'private.txt': { content: 'private\n', mode: 0o600 },
      Dockerfile: [
        'FROM busybox',
        'COPY f1.txt /newname',
        'RUN mkdir /existingdir',
        'COPY f1.txt /existingdir/',
        'COPY *.txt /glob/',
        'COPY f?.txt /glob2/',
        'COPY f1.txt f2.txt /multi/',
        // a wildcard that matches nothing beside a source that exists is no error
        'COPY f1.txt *.nomatch /partial/',
        'COPY dir /copy/dirnoslash',
        'COPY dir/ /copy/dirslash/',
        'COPY --chown=test:test f1.txt /owned/',
        'COPY --chown=1000:1000 dir /owned-dir',
        'COPY exec.sh private.txt /modes/',
        '',
      ].join('\n'),
    });
    const r = await build(bd, ctx, ['-t', 'copy:1']);
    assert.equal(r.code, 0, r.stderr);
    const tree = await runImage(bd, 'copy:1', ['sh', '-c', 'find /newname /existingdir /glob /glob2 /multi /partial /copy /owned /owned-dir /modes | sort']);
    assert.deepEqual(tree.trim().split('\n'), [
      '/copy',
      '/copy/dirnoslash',
      '/copy/dirnoslash/d1',
      '/copy/dirnoslash/sub',
      '/copy/dirnoslash/sub/s1',
      '/copy/dirslash',
      '/copy/dirslash/d1',
      '/copy/dirslash/sub',
      '/copy/dirslash/sub/s1',
      '/existingdir',
      '/existingdir/f1.txt',
      '/glob',
      '/glob/f1.txt',
      '/glob/f2.txt',
      '/glob/private.txt',
      '/glob2',
      '/glob2/f1.txt',
      '/glob2/f2.txt',
      '/modes',
      '/modes/exec.sh',
      '/modes/private.txt',
      '/multi',
      '/multi/f1.txt',
      '/multi/f2.txt',
      '/newname',
      '/owned',
      '/owned-dir',
      '/owned-dir/d1',
      '/owned-dir/sub',
      '/owned-dir/sub/s1',
      '/owned/f1.txt',
      '/partial',
      '/partial/f1.txt',
    ]);
    assert.equal(await runImage(bd, 'copy:1', ['cat', '/newname', '/copy/dirslash/sub/s1']), 'one\ns1\n');
    const owners = await runImage(bd, 'copy:1', ['sh', '-c', 'stat -c "%n %u:%g %a" /newname /glob /owned /owned/f1.txt /owned-dir /owned-dir/d1 /owned-dir/sub /owned-dir/sub/s1 /modes/exec.sh /modes/private.txt']);
    assert.deepEqual(owners.trim().split('\n'), [
      '/newname 0:0 644',
      '/glob 0:0 755',
      // with --chown, the destination directories COPY made are the owner's too
      '/owned 1000:1000 755',
      '/owned/f1.txt 1000:1000 644',
      '/owned-dir 1000:1000 755',
      '/owned-dir/d1 1000:1000 644',
      '/owned-dir/sub 1000:1000 755',
      '/owned-dir/sub/s1 1000:1000 644',
      '/modes/exec.sh 0:0 755',
      '/modes/private.txt 0:0 600',
    ]);
    assert.equal(await runImage(bd, 'copy:1', ['/modes/exec.sh']), 'run\n');
    // the eleven COPYs make a layer each, and so does the RUN mkdir
    assert.equal((await inspectImage(bd, 'copy:1')).RootFS.Layers.length, busyboxLayers + 12);
    const history = (await createdBy(bd, 'copy:1')).slice(0, 12).reverse();
    const expected = [
      '#(nop) COPY file:<H> in /newname ',
      'mkdir /existingdir',
      '#(nop) COPY file:<H> in /existingdir/ ',
      '#(nop) COPY multi:<H> in /glob/ ',
      '#(nop) COPY multi:<H> in /glob2/ ',
      '#(nop) COPY multi:<H> in /multi/ ',
      '#(nop) COPY file:<H> in /partial/ ',
      '#(nop) COPY dir:<H> in /copy/dirnoslash ',
      '#(nop) COPY dir:<H> in /copy/dirslash/ ',
      // no space between the flag and the source's hash, as dockerd writes it
      '#(nop) COPY --chown=test:testfile:<H> in /owned/ ',
      '#(nop) COPY --chown=1000:1000dir:<H> in /owned-dir ',
      '#(nop) COPY multi:<H> in /modes/ ',
    ];
    expected.forEach((want, i) => assert.match(history[i], step(`/bin/sh -c ${want}`), `step ${i + 2}`));
    // the same file gives the same hash wherever it goes
    assert.equal(hashOf(history[0]), hashOf(history[2]));
    assert.equal(hashOf(history[7]), hashOf(history[8]));
    assert.notEqual(hashOf(history[3]), hashOf(history[5]));
    // a COPY step has no container
    const top = await inspectImage(bd, 'copy:1');
    assert.equal(top.Container, '');
    assert.match(top.ContainerConfig.Cmd?.join(' ') ?? '', new RegExp(`^/bin/sh -c #\\(nop\\) COPY multi:${HASH} in /modes/ $`));
  });

  test('ADD of local sources: files and directories as COPY, a tar (plain or gzip) extracted where COPY keeps it whole, --chown with a user alone', async () => {
    const archive = await tarOf([
      { name: 't1', content: 't1\n' },
      { name: 'tdir/', type: 'directory' },
      { name: 'tdir/t2', content: 't2\n', uid: 1000, gid: 1000 },
    ]);
    const ctx = writeContext(bd, 'add', {
      'f1.txt': 'one\n',
      'f2.txt': 'two\n',
      'dir/d1': 'd1\n',
      'arch.tar': { content: archive },
      'arch.tgz': { content: gzipSync(archive) },
      Dockerfile: [
        'FROM busybox',
        'ADD f1.txt /add/f1.txt',
        'ADD dir /add/dir',
        'ADD arch.tar /add/x/',
        'ADD arch.tgz /add/z',
        'COPY arch.tar /copy/arch.tar',
        'ADD --chown=test f2.txt /owned-add/',
        '',
      ].join('\n'),
    });
    const r = await build(bd, ctx, ['-t', 'add:1']);
    assert.equal(r.code, 0, r.stderr);
    const tree = await runImage(bd, 'add:1', ['sh', '-c', 'find /add /copy /owned-add | sort']);
    assert.deepEqual(tree.trim().split('\n'), [
      '/add',
      '/add/dir',
      '/add/dir/d1',
      '/add/f1.txt',
      '/add/x',
      '/add/x/t1',
      '/add/x/tdir',
      '/add/x/tdir/t2',
      '/add/z',
      '/add/z/t1',
      '/add/z/tdir',
      '/add/z/tdir/t2',
      '/copy',
      '/copy/arch.tar',
      '/owned-add',
      '/owned-add/f2.txt',
    ]);
    assert.equal(await runImage(bd, 'add:1', ['cat', '/add/x/tdir/t2', '/add/z/t1']), 't2\nt1\n');
    // an extracted tar keeps its entries' owners; --chown=test means test:test
    const owners = await runImage(bd, 'add:1', ['stat', '-c', '%n %u:%g', '/add/x/tdir/t2', '/add/x/t1', '/owned-add/f2.txt']);
    assert.equal(owners, '/add/x/tdir/t2 1000:1000\n/add/x/t1 0:0\n/owned-add/f2.txt 1000:1000\n');
    assert.equal(await runImage(bd, 'add:1', ['stat', '-c', '%s', '/copy/arch.tar']), `${archive.length}\n`);
    const history = (await createdBy(bd, 'add:1')).slice(0, 6).reverse();
    assert.match(history[0], step('/bin/sh -c #(nop) ADD file:<H> in /add/f1.txt '));
    assert.match(history[1], step('/bin/sh -c #(nop) ADD dir:<H> in /add/dir '));
    assert.match(history[2], step('/bin/sh -c #(nop) ADD file:<H> in /add/x/ '));
    assert.match(history[4], step('/bin/sh -c #(nop) COPY file:<H> in /copy/arch.tar '));
    assert.equal(hashOf(history[2]), hashOf(history[4]));
    assert.match(history[5], step('/bin/sh -c #(nop) ADD --chown=testfile:<H> in /owned-add/ '));
  });

  test('ADD from a URL: named after it or as given, mode 0600, a tar not extracted, --chown; its download in the stream; a 404 fails the step', async () => {
    const www = path.join(bd.dir, 'www');
    mkdirSync(www);
    writeFileSync(path.join(www, 'remote.txt'), 'from-url\n');
    const remoteTar = await tarOf([{ name: 'inside', content: 'x\n' }]);
    writeFileSync(path.join(www, 'r.tar'), remoteTar);
    const server = await serveFiles(bd, www);
    try {
      const url = server.url;
      const dockerfile = ['FROM busybox', `ADD ${url}/remote.txt /url/`, `ADD ${url}/remote.txt /url/named.txt`, `ADD ${url}/r.tar /url/`, `ADD --chown=test:test ${url}/remote.txt /url/owned`, ''].join('\n');
      const res = await postBuild(bd, await tarOf([{ name: 'Dockerfile', content: dockerfile }]), 't=addurl:1&rm=1');
      assert.equal(res.status, 200, res.body);
      const recs = records(res.body);
      assert.equal(recs.find((x) => x.error !== undefined), undefined, res.body);
      const downloads = recs.filter((x) => x.status === 'Downloading');
      assert.ok(downloads.length >= 4, res.body);
      assert.ok(downloads.some((x) => x.progressDetail?.current === 9 && x.progressDetail.total === 9), res.body);
      const files = await runImage(bd, 'addurl:1', ['sh', '-c', 'stat -c "%n %u:%g %a %s" /url/*; cat /url/remote.txt']);
      assert.equal(files, ['/url/named.txt 0:0 600 9', '/url/owned 1000:1000 600 9', `/url/r.tar 0:0 600 ${remoteTar.length}`, '/url/remote.txt 0:0 600 9', 'from-url', ''].join('\n'));
      const history = (await createdBy(bd, 'addurl:1')).slice(0, 4).reverse();
      // the content's digest, without "file:"
      assert.match(history[0], step('/bin/sh -c #(nop) ADD <H> in /url/ '));
      assert.match(history[1], step('/bin/sh -c #(nop) ADD <H> in /url/named.txt '));
      assert.equal(hashOf(history[0]), hashOf(history[1]));
      assert.match(history[3], step('/bin/sh -c #(nop) ADD --chown=test:test<H> in /url/owned '));

      const missing = writeContext(bd, 'addurl-404', { Dockerfile: `FROM busybox\nADD ${url}/nope.txt /url/\n` });
      const failed = await build(bd, missing, ['-t', 'addurl:404']);
      assert.equal(failed.code, 1);
      assert.ok(failed.stderr.includes(`ADD failed: failed to GET ${url}/nope.txt with status 404`), failed.stderr);
    } finally {
      server.close();
    }
  });
});
