import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DockerfileError } from './dockerfile-error.js';
import { parseCommand, parseStages, type Command } from './instructions.js';
import { parseDockerfile } from './parse-dockerfile.js';

function stages(text: string) {
  return parseStages(parseDockerfile(text));
}

/** the commands of a one-stage Dockerfile, without original and line */
function commands(body: string): Array<Partial<Command>> {
  return stages(`FROM busybox\n${body}`).stages[0].commands.map((c) => {
    const rest: Partial<Command> = { ...c };
    delete rest.original;
    delete rest.line;
    return rest;
  });
}

function parseError(text: string): string {
  try {
    stages(text);
  } catch (err) {
    assert.ok(err instanceof DockerfileError);
    assert.equal(err.kind, 'invalidParameter');
    return err.message;
  }
  return 'no error';
}

describe('parseStages', () => {
  it('splits stages and the ARGs before the first FROM', () => {
    const { metaArgs, stages: s } = stages(
      'ARG BASE=busybox\nARG TAG\nFROM --platform=$BUILDPLATFORM ${BASE}:${TAG} AS Build\nRUN make\nARG X\nfrom build\nCOPY --from=Build /out /  \n',
    );
    assert.deepEqual(metaArgs, [
      { kind: 'arg', args: [{ key: 'BASE', value: 'busybox' }], original: 'ARG BASE=busybox', line: 1 },
      { kind: 'arg', args: [{ key: 'TAG' }], original: 'ARG TAG', line: 2 },
    ]);
    assert.equal(s.length, 2);
    assert.deepEqual({ ...s[0], commands: s[0].commands.length }, {
      name: 'build',
      baseName: '${BASE}:${TAG}',
      platform: '$BUILDPLATFORM',
      original: 'FROM --platform=$BUILDPLATFORM ${BASE}:${TAG} AS Build',
      line: 3,
      commands: 2,
    });
    assert.deepEqual(s[1].commands, [
      { kind: 'copy', sources: ['/out'], dest: '/', from: 'Build', chown: '', chmod: '', original: 'COPY --from=Build /out /', line: 7 },
    ]);
    assert.equal(s[1].name, '');
  });

  it('types every instruction', () => {
    assert.deepEqual(
      commands(
        [
          'ENV a=1 b="2 3"',
          'ENV c d e',
          'MAINTAINER me <me@example.com>',
          'LABEL l=1',
          'ADD --chown=1:2 a b /c/',
          'COPY ["x y", "/z"]',
          'ONBUILD RUN echo hi   ',
          'WORKDIR /w',
          'RUN echo $HOME',
          'RUN ["echo", "hi"]',
          'CMD ["a"]',
          'CMD',
          'ENTRYPOINT []',
          'ENTRYPOINT run it',
          'EXPOSE 8080 443/udp 80',
          'USER 1:1',
          'VOLUME /a ["/b"]',
          'VOLUME [" /c "]',
          'STOPSIGNAL SIGKILL',
          'ARG a b=c d=',
          'SHELL ["/bin/bash", "-c"]',
        ].join('\n'),
      ),
      [
        { kind: 'env', pairs: [{ key: 'a', value: '1' }, { key: 'b', value: '"2 3"' }] },
        { kind: 'env', pairs: [{ key: 'c', value: 'd e' }] },
        { kind: 'maintainer', maintainer: 'me <me@example.com>' },
        { kind: 'label', pairs: [{ key: 'l', value: '1' }] },
        { kind: 'add', sources: ['a', 'b'], dest: '/c/', chown: '1:2', chmod: '' },
        { kind: 'copy', sources: ['x y'], dest: '/z', from: '', chown: '', chmod: '' },
        { kind: 'onbuild', expression: 'RUN echo hi   ' },
        { kind: 'workdir', path: '/w' },
        { kind: 'run', cmdLine: ['echo $HOME'], prependShell: true, flagsUsed: [], mounts: [] },
        { kind: 'run', cmdLine: ['echo', 'hi'], prependShell: false, flagsUsed: [], mounts: [] },
        { kind: 'cmd', cmdLine: ['a'], prependShell: false },
        { kind: 'cmd', cmdLine: [], prependShell: true },
        { kind: 'entrypoint', cmdLine: null, prependShell: false },
        { kind: 'entrypoint', cmdLine: ['run it'], prependShell: true },
        { kind: 'expose', ports: ['443/udp', '80', '8080'] },
        { kind: 'user', user: '1:1' },
        { kind: 'volume', volumes: ['/a', '["/b"]'] },
        { kind: 'volume', volumes: ['/c'] },
        { kind: 'stopsignal', signal: 'SIGKILL' },
        { kind: 'arg', args: [{ key: 'a' }, { key: 'b', value: 'c' }, { key: 'd', value: '' }] },
        { kind: 'shell', shell: ['/bin/bash', '-c'] },
      ],
    );
  });

  it('keeps the original for the step line: trimmed, continuations joined', () => {
    const [stage] = stages('FROM busybox   \nRUN echo a \\\n  # comment\n  b  \n').stages;
    assert.equal(stage.original, 'FROM busybox');
    assert.deepEqual([stage.commands[0].original, stage.commands[0].line], ['RUN echo a   b', 2]);
  });

  it('reads HEALTHCHECK as the Go struct', () => {
    assert.deepEqual(
      commands(
        [
          'HEALTHCHECK NONE',
          'HEALTHCHECK --interval=5s --timeout=3s --retries=3 CMD /check --quiet',
          'HEALTHCHECK --start-period=1m30s --interval= --retries=+2 CMD ["/check", "-q"]',
          'healthcheck cmd a   b',
          'HEALTHCHECK --interval=1x NONE',
        ].join('\n'),
      ),
      [
        { kind: 'healthcheck', test: ['NONE'], intervalNs: 0, timeoutNs: 0, startPeriodNs: 0, retries: 0 },
        { kind: 'healthcheck', test: ['CMD-SHELL', '/check --quiet'], intervalNs: 5e9, timeoutNs: 3e9, startPeriodNs: 0, retries: 3 },
        { kind: 'healthcheck', test: ['CMD', '/check', '-q'], intervalNs: 0, timeoutNs: 0, startPeriodNs: 9e10, retries: 2 },
        { kind: 'healthcheck', test: ['CMD-SHELL', 'a   b'], intervalNs: 0, timeoutNs: 0, startPeriodNs: 0, retries: 0 },
        { kind: 'healthcheck', test: ['NONE'], intervalNs: 0, timeoutNs: 0, startPeriodNs: 0, retries: 0 },
      ],
    );
  });

  it('reads RUN --mount, which the classic builder refuses later', () => {
    const [run] = commands("RUN --mount=type=cache,target=/root/.cache,id=x,sharing=LOCKED,uid=1000,mode=0755 --mount='type=secret,\"id=a,b\",required' true");
    assert.deepEqual(run, {
      kind: 'run',
      cmdLine: ['true'],
      prependShell: true,
      flagsUsed: ['mount'],
      mounts: [
        { type: 'cache', from: '', source: '', target: '/root/.cache', readOnly: false, cacheId: 'x', cacheSharing: 'locked', required: false, uid: 1000, mode: 0o755 },
        { type: 'secret', from: '', source: '', target: '', readOnly: true, cacheId: 'a,b', cacheSharing: '', required: true },
      ],
    });
    const [bind] = stages('FROM busybox\nRUN --mount=target=/x,rw x').stages[0].commands;
    assert.equal(bind.kind === 'run' && bind.mounts[0].readOnly, false);
  });

  // every message checked against dockerd 20.10 (POST /build answers 400 with it)
  it("refuses with dockerd's messages", () => {
    const cases: Array<[string, string]> = [
      ['FROM busybox\nFOO bar', 'dockerfile parse error line 2: unknown instruction: FOO'],
      ['FROM busybox\n\\\n', 'dockerfile parse error line 2: unknown instruction: '],
      ['FROM busybox a b c', 'dockerfile parse error line 1: FROM requires either one or three arguments'],
      ['FROM busybox AS', 'dockerfile parse error line 1: FROM requires either one or three arguments'],
      ['FROM', 'dockerfile parse error line 1: FROM requires either one or three arguments'],
      ['FROM busybox AS 1x', 'dockerfile parse error line 1: invalid name for build stage: "1x", name can\'t start with a number or contain symbols'],
      ['FROM busybox as a-b_c.d\nFROM busybox AS _x', 'dockerfile parse error line 2: invalid name for build stage: "_x", name can\'t start with a number or contain symbols'],
      ['FROM --foo=x busybox', 'dockerfile parse error line 1: Unknown flag: foo'],
      ['RUN true', 'no build stage in current context'],
      ['ARG\nFROM busybox', 'dockerfile parse error line 1: ARG requires at least one argument'],
      ['FROM busybox\nARG =x', 'dockerfile parse error line 2: ARG names can not be blank'],
      ['FROM busybox\nCOPY --fé=1 a b', 'dockerfile parse error line 2: Unknown flag: fÃ©'],
      ['FROM busybox\nCOPY x', 'dockerfile parse error line 2: COPY requires at least two arguments, but only one was provided. Destination could not be determined'],
      ['FROM busybox\nADD x', 'dockerfile parse error line 2: ADD requires at least two arguments, but only one was provided. Destination could not be determined'],
      ['FROM busybox\nCOPY --chown x y', 'dockerfile parse error line 2: Missing a value on flag: chown'],
      ['FROM busybox\nCOPY --from=a --from=b x y', 'dockerfile parse error line 2: Duplicate flag specified: from'],
      ['FROM busybox\nENV =x', 'dockerfile parse error line 2: ENV names can not be blank'],
      ['FROM busybox\nENV', 'dockerfile parse error line 2: ENV requires at least one argument'],
      ['FROM busybox\nLABEL', 'dockerfile parse error line 2: LABEL requires at least one argument'],
      ['FROM busybox\nHEALTHCHECK --interval=0s CMD x', 'dockerfile parse error line 2: Interval "interval" cannot be less than 1ms'],
      ['FROM busybox\nHEALTHCHECK --interval=-1s CMD x', 'dockerfile parse error line 2: Interval "interval" cannot be less than 1ms'],
      ['FROM busybox\nHEALTHCHECK --start-period=100us CMD x', 'dockerfile parse error line 2: Interval "start-period" cannot be less than 1ms'],
      ['FROM busybox\nHEALTHCHECK --retries=0 CMD x', 'dockerfile parse error line 2: --retries must be at least 1 (not 0)'],
      ['FROM busybox\nHEALTHCHECK --retries=x CMD x', 'dockerfile parse error line 2: strconv.ParseInt: parsing "x": invalid syntax'],
      ['FROM busybox\nHEALTHCHECK --retries=99999999999 CMD x', 'dockerfile parse error line 2: strconv.ParseInt: parsing "99999999999": value out of range'],
      ['FROM busybox\nHEALTHCHECK --interval=x CMD x', 'dockerfile parse error line 2: time: invalid duration "x"'],
      ['FROM busybox\nHEALTHCHECK --interval=1 CMD x', 'dockerfile parse error line 2: time: missing unit in duration "1"'],
      ['FROM busybox\nHEALTHCHECK --interval=1x CMD x', 'dockerfile parse error line 2: time: unknown unit "x" in duration "1x"'],
      ['FROM busybox\nHEALTHCHECK --foo=1 CMD x', 'dockerfile parse error line 2: Unknown flag: foo'],
      ['FROM busybox\nHEALTHCHECK FOO', 'dockerfile parse error line 2: Unknown type "FOO" in HEALTHCHECK (try CMD)'],
      ['FROM busybox\nHEALTHCHECK CMD', 'dockerfile parse error line 2: Missing command after HEALTHCHECK CMD'],
      ['FROM busybox\nHEALTHCHECK NONE x', 'dockerfile parse error line 2: HEALTHCHECK NONE takes no arguments'],
      ['FROM busybox\nHEALTHCHECK', 'dockerfile parse error line 2: HEALTHCHECK requires at least one argument'],
      ['FROM busybox\nONBUILD ONBUILD RUN x', 'dockerfile parse error line 2: Chaining ONBUILD via `ONBUILD ONBUILD` isn\'t allowed'],
      ['FROM busybox\nONBUILD from x', 'dockerfile parse error line 2: FROM isn\'t allowed as an ONBUILD trigger'],
      ['FROM busybox\nONBUILD maintainer x', 'dockerfile parse error line 2: MAINTAINER isn\'t allowed as an ONBUILD trigger'],
      ['FROM busybox\nONBUILD', 'dockerfile parse error line 2: ONBUILD requires at least one argument'],
      ['FROM busybox\nONBUILD --foo RUN x', 'dockerfile parse error line 2: Unknown flag: foo'],
      ['FROM busybox\nRUN --network=host x', 'dockerfile parse error line 2: Unknown flag: network'],
      ['FROM busybox\nRUN --mount "x"', 'dockerfile parse error line 2: Missing a value on flag: mount'],
      ['FROM busybox\nCMD --foo x', 'dockerfile parse error line 2: Unknown flag: foo'],
      ['FROM busybox\nEXPOSE --foo 80', 'dockerfile parse error line 2: Unknown flag: foo'],
      ['FROM busybox\nSHELL sh -c', 'dockerfile parse error line 2: SHELL requires the arguments to be in JSON form'],
      ['FROM busybox\nSHELL []', 'dockerfile parse error line 2: SHELL requires at least one argument'],
      ['FROM busybox\nEXPOSE', 'dockerfile parse error line 2: EXPOSE requires at least one argument'],
      ['FROM busybox\nVOLUME', 'dockerfile parse error line 2: VOLUME requires at least one argument'],
      ['FROM busybox\nVOLUME [""]', 'dockerfile parse error line 2: VOLUME specified can not be an empty string'],
      ['FROM busybox\nUSER', 'dockerfile parse error line 2: USER requires exactly one argument'],
      ['FROM busybox\nWORKDIR', 'dockerfile parse error line 2: WORKDIR requires exactly one argument'],
      ['FROM busybox\nMAINTAINER', 'dockerfile parse error line 2: MAINTAINER requires exactly one argument'],
      ['FROM busybox\nSTOPSIGNAL', 'dockerfile parse error line 2: STOPSIGNAL requires exactly one argument'],
      // instructions are checked in order: the first failing one is the error
      ['FROM busybox\nRUN x\nFOO\nCOPY a', 'dockerfile parse error line 3: unknown instruction: FOO'],
      ['COPY a\nFOO', 'dockerfile parse error line 1: COPY requires at least two arguments, but only one was provided. Destination could not be determined'],
    ];
    for (const [text, message] of cases) assert.equal(parseError(text), message, text);
  });

  it('ignores the flags STOPSIGNAL, ARG and HEALTHCHECK NONE never read', () => {
    assert.deepEqual(commands('STOPSIGNAL --foo=1 KILL\nARG --foo x\nHEALTHCHECK --foo=1 NONE').map((c) => c.kind), ['stopsignal', 'arg', 'healthcheck']);
  });

  it("refuses a malformed RUN --mount with dockerd's messages", () => {
    const cases: Array<[string, string]> = [
      ['--mount=type=foo', 'unsupported mount type "foo"'],
      ['--mount=type=secret', 'invalid secret mount. one of source, target required'],
      ['--mount=a"b', "invalid field 'ab x' must be a key=value pair"],
      ['--mount=', 'failed to parse csv mounts: EOF'],
      ['--mount=foo', "invalid field 'foo' must be a key=value pair"],
      ['--mount=type=bind,mode=0644', 'mode not allowed for "bind" type mounts'],
      ["--mount='a\"b'", 'failed to parse csv mounts: parse error on line 1, column 2: bare " in non-quoted-field'],
      ['--mount=\\"a', 'failed to parse csv mounts: parse error on line 1, column 3: extraneous or missing " in quoted-field'],
      ["--mount='\"a\"b'", 'failed to parse csv mounts: parse error on line 1, column 3: extraneous or missing " in quoted-field'],
      ['--mount=type=bind,ro=maybe', 'invalid value for ro: maybe'],
      ['--mount=type=bind,required', "unexpected key 'required' for mount type 'bind'"],
      ['--mount=type=cache,uid=-1', 'invalid value -1 for uid'],
      ['--mount=type=cache,mode=9', 'invalid value 9 for mode'],
      ['--mount=type=bind,sharing=shared', 'invalid cache sharing set for bind mount'],
      ['--mount=type=secret,from=x,id=a', 'secret mount should not have a from'],
      ['--mount=type=secret,src=a,id=b', "both source and id can't be set"],
      ['--mount=TYPE=SSH,Required=TRUE,foo', "invalid field 'foo' must be a key=value pair"],
      ['--mount=type=cache,sharing=bad', 'unsupported sharing value "bad"'],
      ['--mount=type=cache,foo=bar', "unexpected key 'foo' in 'foo=bar'"],
    ];
    for (const [flag, message] of cases) assert.equal(parseError(`FROM busybox\nRUN ${flag} x`), `dockerfile parse error line 2: ${message}`, flag);
  });
});

describe('parseCommand', () => {
  it('parses an ONBUILD trigger on its own, its errors unprefixed', () => {
    const node = (text: string) => parseDockerfile(text).nodes[0];
    assert.deepEqual(parseCommand(node('RUN echo hi   ')), { kind: 'run', cmdLine: ['echo hi'], prependShell: true, flagsUsed: [], mounts: [], original: 'RUN echo hi', line: 1 });
    assert.throws(() => parseCommand(node('FOO bar')), { message: 'unknown instruction: FOO' });
    assert.throws(() => parseCommand(node('COPY a')), { message: 'COPY requires at least two arguments, but only one was provided. Destination could not be determined' });
    assert.throws(() => parseCommand(node('FROM busybox')), { message: '*instructions.Stage is not a command type' });
  });

  it("passes buildkit's instruction tests", () => {
    const node = (text: string) => parseDockerfile(text).nodes[0];
    const cases: Array<[string, string]> = [
      ['COPY\t\n\t\tquux \\\n      bar', 'COPY requires at least two arguments, but only one was provided. Destination could not be determined'],
      ['ONBUILD FROM scratch', "FROM isn't allowed as an ONBUILD trigger"],
      ['MAINTAINER --boo joe@example.com', 'Unknown flag: boo'],
      ['foo bar', 'unknown instruction: FOO'],
      ['HEALTHCHECK --interval=50ns CMD x', 'Interval "interval" cannot be less than 1ms'],
    ];
    for (const [text, message] of cases) assert.throws(() => parseCommand(node(text)), { message }, text);
    for (const cmd of ['MAINTAINER', 'WORKDIR', 'USER', 'STOPSIGNAL']) {
      assert.throws(() => parseCommand(node(cmd)), { message: `${cmd} requires exactly one argument` });
    }
    for (const cmd of ['ENV', 'LABEL', 'ONBUILD', 'HEALTHCHECK', 'EXPOSE', 'VOLUME']) {
      assert.throws(() => parseCommand(node(cmd)), { message: `${cmd} requires at least one argument` });
    }
    const run = parseCommand(node('RUN --mount=type=tmpfs,target=/foo/ echo hello'));
    assert.deepEqual(run.kind === 'run' && [run.flagsUsed, run.mounts[0].readOnly], [['mount'], false]);
    const healthcheck = parseCommand(node('HEALTHCHECK --interval=1ms CMD hello world'));
    assert.deepEqual(healthcheck.kind === 'healthcheck' && [healthcheck.test, healthcheck.intervalNs], [['CMD-SHELL', 'hello world'], 1e6]);
  });
});
