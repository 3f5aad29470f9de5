// docker build (classic builder) of the Dockerfile instructions other than COPY/ADD, each checked
// on the image it gives: its config as GET /images/{id}/json shows it, its history as `docker
// history` shows it, and what a container of it sees. Expected values are those of Docker Engine
// 20.10 (/work/notes/build-reference.md, sections 1 and 4).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BUSYBOX_PATH } from '../../helpers/busybox-image.js';
import { build, builtId, createdBy, inspectImage, runImage, startBuildDaemon, steps, writeContext, type BuildDaemon } from './build-daemon.js';

describe('docker build: instructions', () => {
  let bd: BuildDaemon;
  let busyboxLayers: number;
  before(async () => {
    bd = await startBuildDaemon();
    busyboxLayers = (await inspectImage(bd, 'busybox')).RootFS.Layers.length;
  });
  after(async () => {
    await bd?.stop();
  });

  const META = [
    'FROM busybox',
    'LABEL a=1 "b c"="d e"',
    'LABEL single=x',
    'EXPOSE 80 443/tcp 53/udp 8000-8001/udp',
    'ENV k1=v1 k2="v 2"',
    'ENV k3 v3 with spaces',
    'ENTRYPOINT ["/bin/echo", "ep"]',
    'CMD ["cmd1"]',
    'VOLUME ["/v1", "/v2"]',
    'VOLUME /v3 /v4',
    'USER test:test',
    'WORKDIR /work',
    'WORKDIR sub',
    'STOPSIGNAL SIGUSR1',
    'HEALTHCHECK --interval=5s --timeout=2s --start-period=1s --retries=4 CMD wget -q localhost || exit 1',
    'SHELL ["/bin/sh", "-ec"]',
    'ONBUILD RUN echo triggered',
    'MAINTAINER someone',
    '',
  ].join('\n');

  test('LABEL, EXPOSE, ENV, ENTRYPOINT, CMD, VOLUME, USER, WORKDIR, STOPSIGNAL, HEALTHCHECK, SHELL, ONBUILD, MAINTAINER set the config', async () => {
    const ctx = writeContext(bd, 'meta', { Dockerfile: META });
    const r = await build(bd, ctx, ['-t', 'meta:1']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(steps(r.stdout).length, 18);
    assert.equal(steps(r.stdout)[14], 'Step 15/18 : HEALTHCHECK --interval=5s --timeout=2s --start-period=1s --retries=4 CMD wget -q localhost || exit 1');
    assert.match(r.stdout, /^Successfully tagged meta:1$/m);
    const img = await inspectImage(bd, 'meta:1');
    assert.equal(img.Id.slice(7, 19), builtId(r.stdout));
    const c = img.Config;
    assert.deepEqual(c.Labels, { a: '1', 'b c': 'd e', single: 'x' });
    assert.deepEqual(c.ExposedPorts, { '80/tcp': {}, '443/tcp': {}, '53/udp': {}, '8000/udp': {}, '8001/udp': {} });
    assert.deepEqual(c.Env, [BUSYBOX_PATH, 'k1=v1', 'k2=v 2', 'k3=v3 with spaces']);
    assert.deepEqual(c.Entrypoint, ['/bin/echo', 'ep']);
    assert.deepEqual(c.Cmd, ['cmd1']);
    assert.deepEqual(c.Volumes, { '/v1': {}, '/v2': {}, '/v3': {}, '/v4': {} });
    assert.equal(c.User, 'test:test');
    assert.equal(c.WorkingDir, '/work/sub');
    assert.equal(c.StopSignal, 'SIGUSR1');
    assert.deepEqual(c.Healthcheck, { Test: ['CMD-SHELL', 'wget -q localhost || exit 1'], Interval: 5e9, Timeout: 2e9, StartPeriod: 1e9, Retries: 4 });
    assert.deepEqual(c.Shell, ['/bin/sh', '-ec']);
    assert.deepEqual(c.OnBuild, ['RUN echo triggered']);
    assert.equal(img.Author, 'someone');
    // the two WORKDIRs made their directories: a layer each; every other step is an empty layer
    assert.equal(img.RootFS.Layers.length, busyboxLayers + 2);

    // a container of it: ENTRYPOINT + CMD, as user test in /work/sub
    assert.equal(await runImage(bd, 'meta:1'), 'ep cmd1\n');
    assert.equal(await runImage(bd, 'meta:1', ['-c', 'id -u; id -g; pwd; echo "$k2|$k3"'], ['--entrypoint', 'sh']), '1000\n1000\n/work/sub\nv 2|v3 with spaces\n');
  });

  test("each step's command in the history, as dockerd records it", async () => {
    const history = await createdBy(bd, 'meta:1');
    assert.deepEqual(history.slice(0, 17).reverse(), [
      '/bin/sh -c #(nop)  LABEL a=1 b c=d e',
      '/bin/sh -c #(nop)  LABEL single=x',
      '/bin/sh -c #(nop)  EXPOSE 443/tcp 53/udp 80 8000-8001/udp',
      '/bin/sh -c #(nop)  ENV k1=v1 k2=v 2',
      '/bin/sh -c #(nop)  ENV k3=v3 with spaces',
      '/bin/sh -c #(nop)  ENTRYPOINT ["/bin/echo" "ep"]',
      '/bin/sh -c #(nop)  CMD ["cmd1"]',
      '/bin/sh -c #(nop)  VOLUME [/v1 /v2]',
      '/bin/sh -c #(nop)  VOLUME [/v3 /v4]',
      '/bin/sh -c #(nop)  USER test:test',
      '/bin/sh -c #(nop) WORKDIR /work',
      '/bin/sh -c #(nop) WORKDIR /work/sub',
      '/bin/sh -c #(nop)  STOPSIGNAL SIGUSR1',
      `/bin/sh -c #(nop)  HEALTHCHECK &{["CMD-SHELL" "wget -q localhost || exit 1"] "5s" "2s" "1s" '\\x04'}`,
      // SHELL's own step and those after it are recorded with the new shell
      '/bin/sh -ec #(nop)  SHELL [/bin/sh -ec]',
      '/bin/sh -ec #(nop)  ONBUILD RUN echo triggered',
      '/bin/sh -ec #(nop)  MAINTAINER someone',
    ]);
    // each step is an image whose parent is the step before
    const img = await inspectImage(bd, 'meta:1');
    const parent = await inspectImage(bd, img.Parent);
    assert.deepEqual(parent.ContainerConfig.Cmd, ['/bin/sh', '-ec', '#(nop) ', 'ONBUILD RUN echo triggered']);
    assert.equal(img.Config.Image, parent.Id);
    assert.deepEqual(img.ContainerConfig.Cmd, ['/bin/sh', '-ec', '#(nop) ', 'MAINTAINER someone']);
  });

  test('RUN in shell and exec form: its output streamed (stderr in red), its files in the image, an unchanged filesystem no layer', async () => {
    const ctx = writeContext(bd, 'run', {
      Dockerfile: [
        'FROM busybox',
        'RUN echo out-line; echo err-line >&2',
        'RUN ["sh", "-c", "echo exec-form $0", "arg0"]',
        'RUN echo written > /made-by-run',
        '',
      ].join('\n'),
    });
    const r = await build(bd, ctx, ['-t', 'run:1']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.includes('out-line\n'), r.stdout);
    assert.ok(r.stdout.includes('\u001b[91merr-line\n\u001b[0m'), JSON.stringify(r.stdout));
    assert.ok(r.stdout.includes('exec-form arg0\n'), r.stdout);
    // each RUN: its container named, run, then removed
    const running = [...r.stdout.matchAll(/^ ---> Running in ([0-9a-f]{12})$/gm)].map((m) => m[1]);
    // (not at a line's start when the step's output ended on stderr: after its \u001b[0m)
    const removed = [...r.stdout.matchAll(/Removing intermediate container ([0-9a-f]{12})$/gm)].map((m) => m[1]);
    assert.equal(running.length, 3, r.stdout);
    assert.deepEqual(removed, running);
    assert.equal(await runImage(bd, 'run:1', ['cat', '/made-by-run']), 'written\n');
    const history = await createdBy(bd, 'run:1');
    assert.deepEqual(history.slice(0, 3), ['/bin/sh -c echo written > /made-by-run', 'sh -c echo exec-form $0 arg0', '/bin/sh -c echo out-line; echo err-line >&2']);
    // only the last RUN changed the filesystem
    assert.equal((await inspectImage(bd, 'run:1')).RootFS.Layers.length, busyboxLayers + 1);
    const exec = await inspectImage(bd, (await inspectImage(bd, 'run:1')).Parent);
    assert.deepEqual(exec.ContainerConfig.Cmd, ['sh', '-c', 'echo exec-form $0', 'arg0']);
  });

  test('ENV in both forms, with substitutions, reaches the RUN steps after it and the image', async () => {
    const ctx = writeContext(bd, 'env', {
      Dockerfile: ['FROM busybox', 'ENV A=a B=${A:-def} C=${UNSET:-def} D=${A:+alt} E=\\$A F="${A}x"', 'ENV G several words here', 'RUN echo "$A|$B|$C|$D|$E|$F|$G" > /env-seen', ''].join('\n'),
    });
    const r = await build(bd, ctx, ['-t', 'env:1']);
    assert.equal(r.code, 0, r.stderr);
    const img = await inspectImage(bd, 'env:1');
    assert.deepEqual(img.Config.Env, [BUSYBOX_PATH, 'A=a', 'B=def', 'C=def', 'D=', 'E=$A', 'F=x', 'G=several words here']);
    // B and F saw A as it was before their line: unset
    assert.equal(await runImage(bd, 'env:1', ['cat', '/env-seen']), 'a|def|def||$A|x|several words here\n');
    assert.equal(await runImage(bd, 'env:1', ['sh', '-c', 'echo "$G"']), 'several words here\n');
  });

  test('USER and WORKDIR apply to the steps after them; WORKDIR makes its directory, root-owned', async () => {
    const ctx = writeContext(bd, 'user', {
      Dockerfile: [
        'FROM busybox',
        'USER nobody',
        'RUN id -u > /tmp/uid-nobody',
        'USER test',
        'WORKDIR /wd',
        'RUN pwd > /tmp/pwd; id -u > /tmp/uid-test; touch /wd/x 2>/dev/null || echo denied > /tmp/wd-write',
        'USER 4242:4343',
        'RUN id > /tmp/numeric',
        'ENV D=/envdir',
        'WORKDIR /tmp',
        'WORKDIR $D/sub',
        '',
      ].join('\n'),
    });
    const r = await build(bd, ctx, ['-t', 'user:1']);
    assert.equal(r.code, 0, r.stderr);
    const img = await inspectImage(bd, 'user:1');
    assert.equal(img.Config.User, '4242:4343');
    assert.equal(img.Config.WorkingDir, '/envdir/sub');
    const seen = await runImage(bd, 'user:1', ['sh', '-c', 'cat /tmp/uid-nobody /tmp/pwd /tmp/uid-test /tmp/wd-write /tmp/numeric; stat -c "%U:%G %a" /wd /envdir/sub'], ['--user', '0']);
    assert.equal(seen, ['65534', '/wd', '1000', 'denied', 'uid=4242 gid=4343 groups=4343', 'root:root 755', 'root:root 755', ''].join('\n'));
    // WORKDIR /tmp (it exists) left no layer; /wd and /envdir/sub did, and the three RUNs wrote files
    assert.equal(img.RootFS.Layers.length, busyboxLayers + 5);
  });

  test('CMD and ENTRYPOINT in shell form, under SHELL; ENTRYPOINT drops an inherited CMD, not one set in the same stage', async () => {
    const shell = writeContext(bd, 'shell', {
      Dockerfile: ['FROM busybox', 'SHELL ["/bin/sh", "-ec"]', 'RUN echo "$0 $-" > /shell-seen', 'CMD echo shell-cmd "$0"', ''].join('\n'),
    });
    let r = await build(bd, shell, ['-t', 'shell:1']);
    assert.equal(r.code, 0, r.stderr);
    let img = await inspectImage(bd, 'shell:1');
    assert.deepEqual(img.Config.Shell, ['/bin/sh', '-ec']);
    assert.deepEqual(img.Config.Cmd, ['/bin/sh', '-ec', 'echo shell-cmd "$0"']);
    assert.equal(await runImage(bd, 'shell:1'), 'shell-cmd /bin/sh\n');
    assert.equal(await runImage(bd, 'shell:1', ['cat', '/shell-seen']), '/bin/sh ce\n');
    assert.deepEqual((await createdBy(bd, 'shell:1'))[1], '/bin/sh -ec echo "$0 $-" > /shell-seen');

    const forms = writeContext(bd, 'forms', { Dockerfile: ['FROM busybox', 'CMD echo shell form', 'ENTRYPOINT exec echo ep-shell', ''].join('\n') });
    r = await build(bd, forms, ['-t', 'forms:1']);
    assert.equal(r.code, 0, r.stderr);
    img = await inspectImage(bd, 'forms:1');
    assert.deepEqual(img.Config.Cmd, ['/bin/sh', '-c', 'echo shell form']);
    assert.deepEqual(img.Config.Entrypoint, ['/bin/sh', '-c', 'exec echo ep-shell']);
    assert.equal(await runImage(bd, 'forms:1'), 'ep-shell\n');

    // busybox's Cmd ["sh"] goes when this stage sets an ENTRYPOINT
    const epOnly = writeContext(bd, 'ep-only', { Dockerfile: 'FROM busybox\nENTRYPOINT ["echo", "from-ep"]\n' });
    r = await build(bd, epOnly, ['-t', 'ep-only:1']);
    assert.equal(r.code, 0, r.stderr);
    img = await inspectImage(bd, 'ep-only:1');
    assert.equal(img.Config.Cmd, null);
    assert.equal(await runImage(bd, 'ep-only:1'), 'from-ep\n');
    const epAfterCmd = writeContext(bd, 'ep-after-cmd', { Dockerfile: 'FROM busybox\nCMD ["kept"]\nENTRYPOINT ["echo"]\n' });
    r = await build(bd, epAfterCmd, ['-t', 'ep-after-cmd:1']);
    assert.equal(r.code, 0, r.stderr);
    img = await inspectImage(bd, 'ep-after-cmd:1');
    assert.deepEqual(img.Config.Cmd, ['kept']);
    assert.equal(await runImage(bd, 'ep-after-cmd:1'), 'kept\n');
  });

  test('VOLUME: the image declares it; what a later RUN writes under it is dropped; no volume is left', async () => {
    const volumesBefore = (await bd.docker(['volume', 'ls', '-q'])).stdout;
    const ctx = writeContext(bd, 'volume', {
      Dockerfile: ['FROM busybox', 'RUN mkdir /data && echo before > /data/before', 'VOLUME /data', 'RUN echo after > /data/after; ls /data', 'RUN ls /data', ''].join('\n'),
    });
    const r = await build(bd, ctx, ['-t', 'volume:1']);
    assert.equal(r.code, 0, r.stderr);
    // the RUN that wrote it saw it; the next one did not
    assert.ok(r.stdout.includes('after\nbefore\n'), r.stdout);
    assert.deepEqual((await inspectImage(bd, 'volume:1')).Config.Volumes, { '/data': {} });
    assert.equal(await runImage(bd, 'volume:1', ['ls', '/data']), 'before\n');
    assert.equal((await bd.docker(['volume', 'ls', '-q'])).stdout, volumesBefore);
  });

  test('HEALTHCHECK NONE and in exec form; STOPSIGNAL kept as written', async () => {
    const none = writeContext(bd, 'hc-none', { Dockerfile: 'FROM busybox\nHEALTHCHECK NONE\nSTOPSIGNAL 9\n' });
    let r = await build(bd, none, ['-t', 'hc-none:1']);
    assert.equal(r.code, 0, r.stderr);
    let img = await inspectImage(bd, 'hc-none:1');
    assert.deepEqual(img.Config.Healthcheck, { Test: ['NONE'] });
    assert.equal(img.Config.StopSignal, '9');
    assert.equal((await createdBy(bd, 'hc-none:1'))[1], `/bin/sh -c #(nop)  HEALTHCHECK &{["NONE"] "0s" "0s" "0s" '\\x00'}`);
    const exec = writeContext(bd, 'hc-exec', { Dockerfile: 'FROM busybox\nHEALTHCHECK CMD ["true", "x"]\n' });
    r = await build(bd, exec, ['-t', 'hc-exec:1']);
    assert.equal(r.code, 0, r.stderr);
    img = await inspectImage(bd, 'hc-exec:1');
    assert.deepEqual(img.Config.Healthcheck, { Test: ['CMD', 'true', 'x'] });
  });

  test('ARG: defaults, --build-arg overrides, the values in the RUN steps\' recorded command, never in the image; unconsumed args warned about', async () => {
    const ctx = writeContext(bd, 'args', {
      Dockerfile: ['FROM busybox', 'ARG a1', 'ARG a2=two', 'ARG a3=three', 'RUN echo "a1=$a1 a2=$a2 a3=$a3" > /args; env | grep PROXY > /proxy || true', 'ENV e1=$a2-x', ''].join('\n'),
    });
    const r = await build(bd, ctx, ['-t', 'args:1', '--build-arg', 'a1=one', '--build-arg', 'a3=over', '--build-arg', 'unused=u', '--build-arg', 'HTTP_PROXY=http://proxy.invalid:3128']);
    assert.equal(r.code, 0, r.stderr);
    // predefined proxy args are never reported; after the build, before its result
    assert.match(r.stdout, /\n\[Warning\] One or more build-args \[unused\] were not consumed\nSuccessfully built [0-9a-f]{12}\n/);
    assert.equal(await runImage(bd, 'args:1', ['cat', '/args']), 'a1=one a2=two a3=over\n');
    // the proxy is in RUN's environment, not in the image
    assert.equal(await runImage(bd, 'args:1', ['cat', '/proxy']), 'HTTP_PROXY=http://proxy.invalid:3128\n');
    const img = await inspectImage(bd, 'args:1');
    assert.deepEqual(img.Config.Env, [BUSYBOX_PATH, 'e1=two-x']);
    const history = await createdBy(bd, 'args:1');
    assert.equal(history[1], '|3 a1=one a2=two a3=over /bin/sh -c echo "a1=$a1 a2=$a2 a3=$a3" > /args; env | grep PROXY > /proxy || true');
    assert.equal(history[0], '/bin/sh -c #(nop)  ENV e1=two-x');
    assert.deepEqual(history.slice(2, 5), ['/bin/sh -c #(nop)  ARG a3=three', '/bin/sh -c #(nop)  ARG a2=two', '/bin/sh -c #(nop)  ARG a1']);
    const run = await inspectImage(bd, img.Parent);
    assert.deepEqual(run.ContainerConfig.Cmd?.slice(0, 4), ['|3', 'a1=one', 'a2=two', 'a3=over']);
  });

  test('ONBUILD: a child build runs the triggers first, and its image has none of its own', async () => {
    const parent = writeContext(bd, 'onbuild-parent', { Dockerfile: 'FROM busybox\nONBUILD RUN echo triggered > /trig\nONBUILD LABEL from=onbuild\n' });
    let r = await build(bd, parent, ['-t', 'onbuild-parent:1']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual((await inspectImage(bd, 'onbuild-parent:1')).Config.OnBuild, ['RUN echo triggered > /trig', 'LABEL from=onbuild']);
    const child = writeContext(bd, 'onbuild-child', { Dockerfile: 'FROM onbuild-parent:1\nRUN cat /trig\n' });
    r = await build(bd, child, ['-t', 'onbuild-child:1']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Step 1\/2 : FROM onbuild-parent:1\n# Executing 2 build triggers\n ---> Running in [0-9a-f]{12}\nRemoving intermediate container [0-9a-f]{12}\n ---> Running in [0-9a-f]{12}\nRemoving intermediate container [0-9a-f]{12}\n ---> [0-9a-f]{12}\nStep 2\/2 : RUN cat \/trig\n ---> Running in [0-9a-f]{12}\ntriggered\n/m);
    const img = await inspectImage(bd, 'onbuild-child:1');
    assert.equal(img.Config.OnBuild, null);
    assert.deepEqual(img.Config.Labels, { from: 'onbuild' });
    assert.deepEqual((await createdBy(bd, 'onbuild-child:1')).slice(0, 3), ['/bin/sh -c cat /trig', '/bin/sh -c #(nop)  LABEL from=onbuild', '/bin/sh -c echo triggered > /trig']);
    // one trigger: singular
    const one = writeContext(bd, 'onbuild-one', { Dockerfile: 'FROM busybox\nONBUILD RUN echo one\n' });
    assert.equal((await build(bd, one, ['-t', 'onbuild-one:1'])).code, 0);
    const oneChild = writeContext(bd, 'onbuild-one-child', { Dockerfile: 'FROM onbuild-one:1\n' });
    r = await build(bd, oneChild, ['-t', 'onbuild-one-child:1']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^# Executing 1 build trigger\n ---> Running in [0-9a-f]{12}\none\n/m);
  });
});
