import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { goQuote } from './go-quote.js';
import { parseDockerfile, type DockerfileNode } from './parse-dockerfile.js';

// buildkit's Node.Dump, the format of its parser testfiles
function dump(text: string): string {
  return parseDockerfile(text)
    .nodes.map((n) => `(${dumpNode(n)})\n`)
    .join('');
}

function dumpNode(n: DockerfileNode): string {
  const flags = n.flags.length > 0 ? ` [${n.flags.map(goQuote).join(' ')}]` : '';
  const rest = n.next ? ` (${dumpNode(n.next)})` : n.args.map((a) => ` ${goQuote(a)}`).join('');
  return `${n.keyword}${flags}${rest}`.trim();
}

function parseError(text: string): string {
  try {
    parseDockerfile(text);
  } catch (err) {
    return (err as Error).message;
  }
  return 'no error';
}

// buildkit v0.8 frontend/dockerfile/parser/testfiles: each Dockerfile and its node dump
const TESTFILES: Array<[string, string, string]> = [
  ["ADD-COPY-with-JSON", "FROM\tubuntu:14.04\nLABEL\tmaintainer\tSeongyeol Lim <seongyeol37@gmail.com>\n\nCOPY\t.\t/go/src/github.com/docker/docker\nADD\t\t.\t/\nADD\t\tnull /\nCOPY\tnullfile /tmp\nADD\t\t[ \"vimrc\", \"/tmp\" ]\nCOPY\t[ \"bashrc\", \"/tmp\" ]\nCOPY\t[ \"test file\", \"/tmp\" ]\nADD\t\t[ \"test file\", \"/tmp/test file\" ]\n", "(from \"ubuntu:14.04\")\n(label \"maintainer\" \"Seongyeol Lim <seongyeol37@gmail.com>\")\n(copy \".\" \"/go/src/github.com/docker/docker\")\n(add \".\" \"/\")\n(add \"null\" \"/\")\n(copy \"nullfile\" \"/tmp\")\n(add \"vimrc\" \"/tmp\")\n(copy \"bashrc\" \"/tmp\")\n(copy \"test file\" \"/tmp\")\n(add \"test file\" \"/tmp/test file\")\n"],
  ["args", "ARG foo bar=baz\nFROM ubuntu\nARG abc=\"123 456\" def\n", "(arg \"foo\" \"bar=baz\")\n(from \"ubuntu\")\n(arg \"abc=\\\"123 456\\\"\" \"def\")\n"],
  ["brimstone-consuldock", "#escape=\\\nFROM brimstone/ubuntu:14.04\n\nLABEL maintainer brimstone@the.narro.ws\n\n# TORUN -v /var/run/docker.sock:/var/run/docker.sock\n\nENV GOPATH /go\n\n# Set our command\nENTRYPOINT [\"/usr/local/bin/consuldock\"]\n\n# Install the packages we need, clean up after them and us\nRUN apt-get update \\\n\t&& dpkg -l | awk '/^ii/ {print $2}' > /tmp/dpkg.clean \\\n    && apt-get --no-install-recommends install -y git golang ca-certificates \\\n    && apt-get clean \\\n    && rm -rf /var/lib/apt/lists \\\n\n\t&& go get -v github.com/brimstone/consuldock \\\n    && mv $GOPATH/bin/consuldock /usr/local/bin/consuldock \\\n\n\t&& dpkg -l | awk '/^ii/ {print $2}' > /tmp/dpkg.dirty \\\n\t&& apt-get remove --purge -y $(diff /tmp/dpkg.clean /tmp/dpkg.dirty | awk '/^>/ {print $2}') \\\n\t&& rm /tmp/dpkg.* \\\n\t&& rm -rf $GOPATH\n", "(from \"brimstone/ubuntu:14.04\")\n(label \"maintainer\" \"brimstone@the.narro.ws\")\n(env \"GOPATH\" \"/go\")\n(entrypoint \"/usr/local/bin/consuldock\")\n(run \"apt-get update \\t&& dpkg -l | awk '/^ii/ {print $2}' > /tmp/dpkg.clean     && apt-get --no-install-recommends install -y git golang ca-certificates     && apt-get clean     && rm -rf /var/lib/apt/lists \\t&& go get -v github.com/brimstone/consuldock     && mv $GOPATH/bin/consuldock /usr/local/bin/consuldock \\t&& dpkg -l | awk '/^ii/ {print $2}' > /tmp/dpkg.dirty \\t&& apt-get remove --purge -y $(diff /tmp/dpkg.clean /tmp/dpkg.dirty | awk '/^>/ {print $2}') \\t&& rm /tmp/dpkg.* \\t&& rm -rf $GOPATH\")\n"],
  ["brimstone-docker-consul", "FROM brimstone/ubuntu:14.04\n\nCMD []\n\nENTRYPOINT [\"/usr/bin/consul\", \"agent\", \"-server\", \"-data-dir=/consul\", \"-client=0.0.0.0\", \"-ui-dir=/webui\"]\n\nEXPOSE 8500 8600 8400 8301 8302\n\nRUN apt-get update \\\n    && apt-get --no-install-recommends install -y unzip wget \\\n\t&& apt-get clean \\\n\t&& rm -rf /var/lib/apt/lists\n\nRUN cd /tmp \\\n    && wget https://dl.bintray.com/mitchellh/consul/0.3.1_web_ui.zip \\\n       -O web_ui.zip \\\n    && unzip web_ui.zip \\\n    && mv dist /webui \\\n    && rm web_ui.zip\n\nRUN apt-get update \\\n\t&& dpkg -l | awk '/^ii/ {print $2}' > /tmp/dpkg.clean \\\n    && apt-get --no-install-recommends install -y unzip wget \\\n    && apt-get clean \\\n    && rm -rf /var/lib/apt/lists \\\n\n    && cd /tmp \\\n    && wget https://dl.bintray.com/mitchellh/consul/0.3.1_web_ui.zip \\\n       -O web_ui.zip \\\n    && unzip web_ui.zip \\\n    && mv dist /webui \\\n    && rm web_ui.zip \\\n\n\t&& dpkg -l | awk '/^ii/ {print $2}' > /tmp/dpkg.dirty \\\n\t&& apt-get remove --purge -y $(diff /tmp/dpkg.clean /tmp/dpkg.dirty | awk '/^>/ {print $2}') \\\n\t&& rm /tmp/dpkg.*\n\nENV GOPATH /go\n\nRUN apt-get update \\\n\t&& dpkg -l | awk '/^ii/ {print $2}' > /tmp/dpkg.clean \\\n    && apt-get --no-install-recommends install -y git golang ca-certificates build-essential \\\n    && apt-get clean \\\n    && rm -rf /var/lib/apt/lists \\\n\n\t&& go get -v github.com/hashicorp/consul \\\n\t&& mv $GOPATH/bin/consul /usr/bin/consul \\\n\n\t&& dpkg -l | awk '/^ii/ {print $2}' > /tmp/dpkg.dirty \\\n\t&& apt-get remove --purge -y $(diff /tmp/dpkg.clean /tmp/dpkg.dirty | awk '/^>/ {print $2}') \\\n\t&& rm /tmp/dpkg.* \\\n\t&& rm -rf $GOPATH\n", "(from \"brimstone/ubuntu:14.04\")\n(cmd)\n(entrypoint \"/usr/bin/consul\" \"agent\" \"-server\" \"-data-dir=/consul\" \"-client=0.0.0.0\" \"-ui-dir=/webui\")\n(expose \"8500\" \"8600\" \"8400\" \"8301\" \"8302\")\n(run \"apt-get update     && apt-get --no-install-recommends install -y unzip wget \\t&& apt-get clean \\t&& rm -rf /var/lib/apt/lists\")\n(run \"cd /tmp     && wget https://dl.bintray.com/mitchellh/consul/0.3.1_web_ui.zip        -O web_ui.zip     && unzip web_ui.zip     && mv dist /webui     && rm web_ui.zip\")\n(run \"apt-get update \\t&& dpkg -l | awk '/^ii/ {print $2}' > /tmp/dpkg.clean     && apt-get --no-install-recommends install -y unzip wget     && apt-get clean     && rm -rf /var/lib/apt/lists     && cd /tmp     && wget https://dl.bintray.com/mitchellh/consul/0.3.1_web_ui.zip        -O web_ui.zip     && unzip web_ui.zip     && mv dist /webui     && rm web_ui.zip \\t&& dpkg -l | awk '/^ii/ {print $2}' > /tmp/dpkg.dirty \\t&& apt-get remove --purge -y $(diff /tmp/dpkg.clean /tmp/dpkg.dirty | awk '/^>/ {print $2}') \\t&& rm /tmp/dpkg.*\")\n(env \"GOPATH\" \"/go\")\n(run \"apt-get update \\t&& dpkg -l | awk '/^ii/ {print $2}' > /tmp/dpkg.clean     && apt-get --no-install-recommends install -y git golang ca-certificates build-essential     && apt-get clean     && rm -rf /var/lib/apt/lists \\t&& go get -v github.com/hashicorp/consul \\t&& mv $GOPATH/bin/consul /usr/bin/consul \\t&& dpkg -l | awk '/^ii/ {print $2}' > /tmp/dpkg.dirty \\t&& apt-get remove --purge -y $(diff /tmp/dpkg.clean /tmp/dpkg.dirty | awk '/^>/ {print $2}') \\t&& rm /tmp/dpkg.* \\t&& rm -rf $GOPATH\")\n"],
  ["continue-at-eof", "FROM alpine:3.5\n\nRUN something \\", "(from \"alpine:3.5\")\n(run \"something\")\n"],
  ["continueIndent", "FROM ubuntu:14.04\n\nRUN echo hello\\\n  world\\\n  goodnight  \\\n  moon\\\n  light\\\nning\nRUN echo hello  \\\n  world\nRUN echo hello  \\\nworld\nRUN echo hello \\\ngoodbye\\\nfrog\nRUN echo hello  \\  \nworld\nRUN echo hi \\\n \\\n world \\\n\\\n good\\\n\\\nnight\nRUN echo goodbye\\\nfrog\nRUN echo good\\\nbye\\\nfrog\n\nRUN echo hello \\\n# this is a comment\n\n# this is a comment with a blank line surrounding it\n\nthis is some more useful stuff\n", "(from \"ubuntu:14.04\")\n(run \"echo hello  world  goodnight    moon  lightning\")\n(run \"echo hello    world\")\n(run \"echo hello  world\")\n(run \"echo hello goodbyefrog\")\n(run \"echo hello  world\")\n(run \"echo hi   world  goodnight\")\n(run \"echo goodbyefrog\")\n(run \"echo goodbyefrog\")\n(run \"echo hello this is some more useful stuff\")\n"],
  ["env", "FROM ubuntu\nENV name value\nENV name=value\nENV name=value name2=value2\nENV name=\"value value1\"\nENV name=value\\ value2\nENV name=\"value'quote space'value2\"\nENV name='value\"double quote\"value2'\nENV name=value\\ value2 name2=value2\\ value3\nENV name=\"a\\\"b\"\nENV name=\"a\\'b\"\nENV name='a\\'b'\nENV name='a\\'b''\nENV name='a\\\"b'\nENV name=\"''\"\n# don't put anything after the next line - it must be the last line of the\n# Dockerfile and it must end with \\\nENV name=value \\\n    name1=value1 \\\n    name2=\"value2a \\\n           value2b\" \\\n    name3=\"value3a\\n\\\"value3b\\\"\" \\\n\tname4=\"value4a\\\\nvalue4b\" \\\n", "(from \"ubuntu\")\n(env \"name\" \"value\")\n(env \"name\" \"value\")\n(env \"name\" \"value\" \"name2\" \"value2\")\n(env \"name\" \"\\\"value value1\\\"\")\n(env \"name\" \"value\\\\ value2\")\n(env \"name\" \"\\\"value'quote space'value2\\\"\")\n(env \"name\" \"'value\\\"double quote\\\"value2'\")\n(env \"name\" \"value\\\\ value2\" \"name2\" \"value2\\\\ value3\")\n(env \"name\" \"\\\"a\\\\\\\"b\\\"\")\n(env \"name\" \"\\\"a\\\\'b\\\"\")\n(env \"name\" \"'a\\\\'b'\")\n(env \"name\" \"'a\\\\'b''\")\n(env \"name\" \"'a\\\\\\\"b'\")\n(env \"name\" \"\\\"''\\\"\")\n(env \"name\" \"value\" \"name1\" \"value1\" \"name2\" \"\\\"value2a            value2b\\\"\" \"name3\" \"\\\"value3a\\\\n\\\\\\\"value3b\\\\\\\"\\\"\" \"name4\" \"\\\"value4a\\\\\\\\nvalue4b\\\"\")\n"],
  ["escape-after-comment", "# Comment here. Should not be looking for the following parser directive.\n# Hence the following line will be ignored, and the subsequent backslash\n# continuation will be the default.\n# escape = `\n\nFROM image\nLABEL maintainer foo@bar.com\nENV GOPATH \\\n\\go", "(from \"image\")\n(label \"maintainer\" \"foo@bar.com\")\n(env \"GOPATH\" \"\\\\go\")\n"],
  ["escape-nonewline", "# escape = `\n# There is no white space line after the directives. This still succeeds, but goes\n# against best practices.\nFROM image\nLABEL maintainer foo@bar.com\nENV GOPATH `\n\\go\n", "(from \"image\")\n(label \"maintainer\" \"foo@bar.com\")\n(env \"GOPATH\" \"\\\\go\")\n"],
  ["escape-with-syntax", "# syntax = docker/dockerfile\n# escape = `\n\nFROM `\n    image\n", "(from \"image\")\n"],
  ["escape", "#escape = `\n\nFROM image\nLABEL maintainer foo@bar.com\nENV GOPATH `\n\\go", "(from \"image\")\n(label \"maintainer\" \"foo@bar.com\")\n(env \"GOPATH\" \"\\\\go\")\n"],
  ["escapes", "FROM ubuntu:14.04\nLABEL maintainer Erik \\\\Hollensbe <erik@hollensbe.org>\\\"\n\nRUN apt-get \\update && \\\n  apt-get \\\"install znc -y\nADD \\conf\\\\\" /.znc\n\nRUN foo \\\n\nbar \\\n\nbaz\n\nCMD [ \"\\/usr\\\\\\\"/bin/znc\", \"-f\", \"-r\" ]\n", "(from \"ubuntu:14.04\")\n(label \"maintainer\" \"Erik \\\\\\\\Hollensbe <erik@hollensbe.org>\\\\\\\"\")\n(run \"apt-get \\\\update &&   apt-get \\\\\\\"install znc -y\")\n(add \"\\\\conf\\\\\\\\\\\"\" \"/.znc\")\n(run \"foo bar baz\")\n(cmd \"/usr\\\\\\\"/bin/znc\" \"-f\" \"-r\")\n"],
  ["flags", "FROM scratch\nCOPY foo /tmp/\nCOPY --user=me foo /tmp/\nCOPY --doit=true foo /tmp/\nCOPY --user=me --doit=true foo /tmp/\nCOPY --doit=true -- foo /tmp/\nCOPY -- foo /tmp/\nCMD --doit [ \"a\", \"b\" ]\nCMD --doit=true -- [ \"a\", \"b\" ]\nCMD --doit -- [ ]\n", "(from \"scratch\")\n(copy \"foo\" \"/tmp/\")\n(copy [\"--user=me\"] \"foo\" \"/tmp/\")\n(copy [\"--doit=true\"] \"foo\" \"/tmp/\")\n(copy [\"--user=me\" \"--doit=true\"] \"foo\" \"/tmp/\")\n(copy [\"--doit=true\"] \"foo\" \"/tmp/\")\n(copy \"foo\" \"/tmp/\")\n(cmd [\"--doit\"] \"a\" \"b\")\n(cmd [\"--doit=true\"] \"a\" \"b\")\n(cmd [\"--doit\"])\n"],
  ["health", "FROM debian\nADD check.sh main.sh /app/\nCMD /app/main.sh\nHEALTHCHECK\nHEALTHCHECK --interval=5s --timeout=3s --retries=3 \\\n  CMD /app/check.sh --quiet\nHEALTHCHECK CMD\nHEALTHCHECK   CMD   a b\nHEALTHCHECK --timeout=3s CMD [\"foo\"]\nHEALTHCHECK CONNECT TCP 7000\n", "(from \"debian\")\n(add \"check.sh\" \"main.sh\" \"/app/\")\n(cmd \"/app/main.sh\")\n(healthcheck)\n(healthcheck [\"--interval=5s\" \"--timeout=3s\" \"--retries=3\"] \"CMD\" \"/app/check.sh --quiet\")\n(healthcheck \"CMD\")\n(healthcheck \"CMD\" \"a b\")\n(healthcheck [\"--timeout=3s\"] \"CMD\" \"foo\")\n(healthcheck \"CONNECT\" \"TCP 7000\")\n"],
  ["jeztah-invalid-json-json-inside-string-double", "CMD \"[\\\"echo\\\", \\\"Phew, I just managed to escaped those double quotes\\\"]\"\n", "(cmd \"\\\"[\\\\\\\"echo\\\\\\\", \\\\\\\"Phew, I just managed to escaped those double quotes\\\\\\\"]\\\"\")\n"],
  ["jeztah-invalid-json-json-inside-string", "CMD '[\"echo\", \"Well, JSON in a string is JSON too?\"]'\n", "(cmd \"'[\\\"echo\\\", \\\"Well, JSON in a string is JSON too?\\\"]'\")\n"],
  ["jeztah-invalid-json-single-quotes", "CMD ['echo','single quotes are invalid JSON']\n", "(cmd \"['echo','single quotes are invalid JSON']\")\n"],
  ["jeztah-invalid-json-unterminated-bracket", "CMD [\"echo\", \"Please, close the brackets when you're done\"\n", "(cmd \"[\\\"echo\\\", \\\"Please, close the brackets when you're done\\\"\")\n"],
  ["jeztah-invalid-json-unterminated-string", "CMD [\"echo\", \"look ma, no quote!]\n", "(cmd \"[\\\"echo\\\", \\\"look ma, no quote!]\")\n"],
  ["json", "CMD []\nCMD [\"\"]\nCMD [\"a\"]\nCMD [\"a\",\"b\"]\nCMD [ \"a\", \"b\" ]\nCMD [\t\"a\",\t\"b\"\t]\nCMD\t[\t\"a\",\t\"b\"\t]\t\nCMD [\"abc 123\", \"♥\", \"☃\", \"\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u0000\"]\n", "(cmd)\n(cmd \"\")\n(cmd \"a\")\n(cmd \"a\" \"b\")\n(cmd \"a\" \"b\")\n(cmd \"a\" \"b\")\n(cmd \"a\" \"b\")\n(cmd \"abc 123\" \"♥\" \"☃\" \"\\\" \\\\ / \\b \\f \\n \\r \\t \\x00\")\n"],
  ["kartar-entrypoint-oddities", "FROM ubuntu:14.04\nLABEL maintainer James Turnbull \"james@example.com\"\nENV REFRESHED_AT 2014-06-01\nRUN apt-get update\nRUN apt-get --no-install-recommends install -y redis-server redis-tools\nEXPOSE 6379\nENTRYPOINT [ \"/usr/bin/redis-server\" ]\n", "(from \"ubuntu:14.04\")\n(label \"maintainer\" \"James Turnbull \\\"james@example.com\\\"\")\n(env \"REFRESHED_AT\" \"2014-06-01\")\n(run \"apt-get update\")\n(run \"apt-get --no-install-recommends install -y redis-server redis-tools\")\n(expose \"6379\")\n(entrypoint \"/usr/bin/redis-server\")\n"],
  ["lk4d4-the-edge-case-generator", "FROM busybox:buildroot-2014.02\n\nLABEL maintainer docker <docker@docker.io>\n\nONBUILD RUN [\"echo\", \"test\"]\nONBUILD RUN echo test\nONBUILD COPY . /\n\n\n# RUN Commands \\\n# linebreak in comment \\\nRUN [\"ls\", \"-la\"]\nRUN [\"echo\", \"'1234'\"]\nRUN echo \"1234\"\nRUN echo 1234\nRUN echo '1234' && \\\n    echo \"456\" && \\\n    echo 789\nRUN    sh -c 'echo root:testpass \\\n        > /tmp/passwd'\nRUN mkdir -p /test /test2 /test3/test\n\n# ENV \\\nENV SCUBA 1 DUBA 3\nENV SCUBA \"1 DUBA 3\"\n\n# CMD \\\nCMD [\"echo\", \"test\"]\nCMD echo test\nCMD echo \"test\"\nCMD echo 'test'\nCMD echo 'test' | wc -\n\n#EXPOSE\\\nEXPOSE 3000\nEXPOSE 9000 5000 6000\n\nUSER docker\nUSER docker:root\n\nVOLUME [\"/test\"]\nVOLUME [\"/test\", \"/test2\"]\nVOLUME /test3\n\nWORKDIR /test\n\nADD . /\nCOPY . copy\n", "(from \"busybox:buildroot-2014.02\")\n(label \"maintainer\" \"docker <docker@docker.io>\")\n(onbuild (run \"echo\" \"test\"))\n(onbuild (run \"echo test\"))\n(onbuild (copy \".\" \"/\"))\n(run \"ls\" \"-la\")\n(run \"echo\" \"'1234'\")\n(run \"echo \\\"1234\\\"\")\n(run \"echo 1234\")\n(run \"echo '1234' &&     echo \\\"456\\\" &&     echo 789\")\n(run \"sh -c 'echo root:testpass         > /tmp/passwd'\")\n(run \"mkdir -p /test /test2 /test3/test\")\n(env \"SCUBA\" \"1 DUBA 3\")\n(env \"SCUBA\" \"\\\"1 DUBA 3\\\"\")\n(cmd \"echo\" \"test\")\n(cmd \"echo test\")\n(cmd \"echo \\\"test\\\"\")\n(cmd \"echo 'test'\")\n(cmd \"echo 'test' | wc -\")\n(expose \"3000\")\n(expose \"9000\" \"5000\" \"6000\")\n(user \"docker\")\n(user \"docker:root\")\n(volume \"/test\")\n(volume \"/test\" \"/test2\")\n(volume \"/test3\")\n(workdir \"/test\")\n(add \".\" \"/\")\n(copy \".\" \"copy\")\n"],
  ["multiple-volumes", "FROM foo\n\nVOLUME /opt/nagios/var /opt/nagios/etc /opt/nagios/libexec /var/log/apache2 /usr/share/snmp/mibs\n", "(from \"foo\")\n(volume \"/opt/nagios/var\" \"/opt/nagios/etc\" \"/opt/nagios/libexec\" \"/var/log/apache2\" \"/usr/share/snmp/mibs\")\n"],
  ["trailing-backslash", "# https://github.com/docker/for-win/issues/5254\n\nFROM hello-world\n\nENV A path\nENV B another\\\\path\nENV C trailing\\\\backslash\\\\\nENV D This should not be appended to C\nENV E hello\\\n\\\nworld\nENV F hello\\\n \\\nworld\nENV G hello \\\n\\\nworld\n", "(from \"hello-world\")\n(env \"A\" \"path\")\n(env \"B\" \"another\\\\\\\\path\")\n(env \"C\" \"trailing\\\\\\\\backslash\\\\\\\\\")\n(env \"D\" \"This should not be appended to C\")\n(env \"E\" \"helloworld\")\n(env \"F\" \"hello world\")\n(env \"G\" \"hello world\")\n"],
  ["znc", "FROM ubuntu:14.04\nLABEL maintainer Erik Hollensbe <erik@hollensbe.org>\n\nRUN apt-get update && apt-get install znc -y\nADD conf /.znc\n\nCMD [ \"/usr/bin/znc\", \"-f\", \"-r\" ]\n", "(from \"ubuntu:14.04\")\n(label \"maintainer\" \"Erik Hollensbe <erik@hollensbe.org>\")\n(run \"apt-get update && apt-get install znc -y\")\n(add \"conf\" \"/.znc\")\n(cmd \"/usr/bin/znc\" \"-f\" \"-r\")\n"],
];

describe('parseDockerfile', () => {
  it("reads buildkit's parser testfiles as buildkit does", () => {
    for (const [name, dockerfile, result] of TESTFILES) assert.equal(dump(dockerfile), result, name);
  });

  it('gives each node its first and last physical line', () => {
    // buildkit's testfile-line: blank lines, comments and continuations with empty lines
    const text = [
      '# ESCAPE=\\', '', '', '', 'FROM brimstone/ubuntu:14.04', '', '', '# TORUN -v /var/run/docker.sock:/var/run/docker.sock',
      '', '', 'ENV GOPATH \\', '/go', '', '', '', '# Install the packages we need, clean up after them and us',
      'RUN apt-get update \\', "\t&& dpkg -l | awk '/^ii/ {print $2}' > /tmp/dpkg.clean \\", '', '',
      '    && apt-get --no-install-recommends install -y git golang ca-certificates \\', '    && apt-get clean \\',
      '    && rm -rf /var/lib/apt/lists \\', '', '\t&& go get -v github.com/brimstone/consuldock \\',
      '    && mv $GOPATH/bin/consuldock /usr/local/bin/consuldock \\', '', "\t&& dpkg -l | awk '/^ii/ {print $2}' > /tmp/dpkg.dirty \\",
      "\t&& apt-get remove --purge -y $(diff /tmp/dpkg.clean /tmp/dpkg.dirty | awk '/^>/ {print $2}') \\", '\t&& rm /tmp/dpkg.* \\',
      '\t&& rm -rf $GOPATH', '', '', '', '',
    ].join('\n');
    const lines = parseDockerfile(text).nodes.map((n) => [n.startLine, n.endLine]);
    assert.deepEqual(lines, [[5, 5], [11, 12], [17, 31]]);
  });

  it('warns of empty continuation lines', () => {
    const text = [
      '', 'FROM alpine:3.6', '', 'RUN something \\', '', '    following \\', '', '    more', '', 'RUN another \\', '',
      '    thing', 'RUN non-indented \\', '# this is a comment', '   after-comment', '', 'RUN indented \\',
      '    # this is an indented comment', '    comment', '\t',
    ].join('\n');
    const { warnings, nodes } = parseDockerfile(text);
    assert.deepEqual(warnings, [
      '[WARNING]: Empty continuation line found in:\n    RUN something     following     more',
      '[WARNING]: Empty continuation line found in:\n    RUN another     thing',
      '[WARNING]: Empty continuation lines will become errors in a future release.',
    ]);
    assert.deepEqual(
      nodes.map((n) => n.original),
      ['FROM alpine:3.6', 'RUN something     following     more', 'RUN another     thing', 'RUN non-indented    after-comment', 'RUN indented     comment'],
    );
  });

  it('keeps the original line as written, trailing space included', () => {
    const [node] = parseDockerfile('  ONBUILD   RUN  echo hi   \n').nodes;
    assert.equal(node.original, 'ONBUILD   RUN  echo hi   ');
    assert.deepEqual(node.args, ['run', 'echo hi']);
    assert.equal(node.next?.original, 'RUN  echo hi');
    assert.equal(node.next?.keyword, 'run');
  });

  it('reads CRLF line ends and a byte order mark', () => {
    const parsed = parseDockerfile('\uFEFF# escape=`\r\nFROM busybox\r\nRUN echo a `\r\n  b\r\n');
    assert.equal(parsed.escapeToken, '`');
    assert.deepEqual(
      parsed.nodes.map((n) => n.original),
      ['FROM busybox', 'RUN echo a   b'],
    );
  });

  it('takes parser directives only at the top, case-insensitively', () => {
    assert.equal(parseDockerfile('# ESCAPE = `\nFROM x').escapeToken, '`');
    assert.equal(parseDockerfile('  #escape=`\nFROM x').escapeToken, '`');
    assert.equal(parseDockerfile('# syntax=docker/dockerfile:1\n# escape=`\nFROM x').escapeToken, '`');
    // after an empty line, a comment or an unknown directive, it is a comment
    assert.equal(parseDockerfile('\n# escape=`\nFROM x').escapeToken, '\\');
    assert.equal(parseDockerfile('# hello\n# escape=`\nFROM x').escapeToken, '\\');
    assert.equal(parseDockerfile('# foo=bar\n# escape=`\nFROM x').escapeToken, '\\');
    assert.equal(parseDockerfile('FROM x\n# escape=`').escapeToken, '\\');
  });

  it('refuses bad directives with dockerd\'s messages', () => {
    assert.equal(parseError('# escape=x\nFROM busybox'), "invalid escape token 'x' does not match ` or \\");
    assert.equal(parseError('# escape=`\n# escape=\\\nFROM busybox'), 'only one escape parser directive can be used');
    assert.equal(parseError('# syntax=foo\n# SYNTAX=bar\nFROM busybox'), 'only one syntax parser directive can be used');
  });

  it('refuses what buildkit\'s parser refuses', () => {
    // its testfiles-negative
    assert.equal(parseError(''), 'file with no instructions');
    assert.equal(parseError('# Hello\n# These are just comments\n\n'), 'file with no instructions');
    assert.equal(parseError('FROM busybox\n\nENV PATH\n'), 'ENV must have two arguments');
    assert.equal(parseError('CMD [ "echo", [ "nested json" ] ]\n'), 'when using JSON array syntax, arrays must be comprised of strings only');
    assert.equal(parseError('FROM busybox\nLABEL x\n'), 'LABEL must have two arguments');
    assert.equal(parseError('FROM busybox\nENV a=1 b\n'), 'Syntax error - can\'t find = in "b". Must be of the form: name=value');
    assert.equal(parseError('FROM busybox\nENV a=${b:?must be set}\n'), 'Syntax error - can\'t find = in "be". Must be of the form: name=value');
    assert.equal(parseError('FROM busybox\nCMD ["a", 1]'), 'when using JSON array syntax, arrays must be comprised of strings only');
    assert.equal(parseError('FROM busybox\nVOLUME [null]'), 'when using JSON array syntax, arrays must be comprised of strings only');
  });

  it('stops at a line longer than 64 KiB', () => {
    const label = 'a'.repeat(65536);
    assert.equal(parseError(`\n\t\tFROM image\n\t\tLABEL test=${label}\n`), 'dockerfile line greater than max allowed size of 65535');
    // a longest line still fits, and nothing parsed before the long line means no instructions
    assert.equal(parseDockerfile(`FROM ${'a'.repeat(65530)}\n`).nodes.length, 1);
    assert.equal(parseError(`FROM ${'a'.repeat(65531)}\n`), 'file with no instructions');
    // the node cut short by it is still parsed, and its error comes first
    assert.equal(parseError(`FROM x\nENV a \\\n${'a'.repeat(70000)}`), 'ENV must have two arguments');
  });

  it('splits arguments per keyword', () => {
    const cases: Array<[string, string]> = [
      // an escape token alone on the first line opens a continuation of nothing
      ['FROM busybox\n\\\n', '(from "busybox")\n("")\n'],
      ['foo bar baz', '(foo "")\n'],
      ['ARG a="b c" d\n', '(arg "a=\\"b c\\"" "d")\n'],
      // buildkit's TestParseWords
      ['ARG foo\\ bar\n', '(arg "foo\\\\ bar")\n'],
      ["ARG foo bar 'abc xyz'\n", '(arg "foo" "bar" "\'abc xyz\'")\n'],
      ['ARG föo bàr "âbc xÿz"\n', '(arg "föo" "bàr" "\\"âbc xÿz\\"")\n'],
      ['LABEL foo=bar thing=star\n', '(label "foo" "bar" "thing" "star")\n'],
      ['ENV a b c\n', '(env "a" "b c")\n'],
      ['ENV "a b" c\n', '(env "\\"a" "b\\" c")\n'],
      ['ENV a=1 b="x y" c=\'z\'\n', '(env "a" "1" "b" "\\"x y\\"" "c" "\'z\'")\n'],
      ['ENV =x\n', '(env "" "x")\n'],
      ['LABEL a\u00a0b c\n', '(label "a\\u00a0b" "c")\n'],
      ['ENV\n', '(env)\n'],
      ['CMD ["a"] garbage\n', '(cmd "a")\n'],
      ['CMD ["a", 1e999]\n', '(cmd "[\\"a\\", 1e999]")\n'],
      ['CMD\n', '(cmd)\n'],
      ['RUN  [ "a",\t"b" ]  \n', '(run "a" "b")\n'],
      ['RUN ["a" "b"]\n', '(run "[\\"a\\" \\"b\\"]")\n'],
      ['SHELL ["/bin/sh", "-c"]\n', '(shell "/bin/sh" "-c")\n'],
      ['ENTRYPOINT []\n', '(entrypoint)\n'],
      ['COPY --from=a --chown=1:1 x y\n', '(copy ["--from=a" "--chown=1:1"] "x" "y")\n'],
      ['COPY --chown="a b" x y\n', '(copy ["--chown=a b"] "x" "y")\n'],
      ['COPY "--" x y\n', '(copy "\\"--\\"" "x" "y")\n'],
      ['COPY -- --chown=a x y\n', '(copy "--chown=a" "x" "y")\n'],
      ['COPY --chown=1 -- --chown=2 x y\n', '(copy ["--chown=1"] "--chown=2" "x" "y")\n'],
      ['COPY --a=b\\ c x y\n', '(copy ["--a=b c"] "x" "y")\n'],
      ['RUN --mount=a"b x\n', '(run ["--mount=ab x"])\n'],
      // flags are read byte by byte: a UTF-8 character turns into its bytes' Latin-1 characters
      ['COPY --fé=1 a b\n', '(copy ["--fÃ©=1"] "a" "b")\n'],
      ['FROM --platform=linux/amd64 busybox AS build\n', '(from ["--platform=linux/amd64"] "busybox" "AS" "build")\n'],
      ['EXPOSE 80  443/udp\t8080\n', '(expose "80" "443/udp" "8080")\n'],
      ['VOLUME /a /b\n', '(volume "/a" "/b")\n'],
      ['VOLUME ["/a", "/b c"]\n', '(volume "/a" "/b c")\n'],
      ['USER a b\n', '(user "a b")\n'],
      ['WORKDIR  /a b \n', '(workdir "/a b")\n'],
      ['HEALTHCHECK NONE\n', '(healthcheck "NONE")\n'],
      ['HEALTHCHECK --retries=2 CMD ["a", "b"]\n', '(healthcheck ["--retries=2"] "CMD" "a" "b")\n'],
      ['ONBUILD\n', '(onbuild)\n'],
      ['ONBUILD COPY --from=x a b\n', '(onbuild (copy ["--from=x"] "a" "b"))\n'],
      ['from busybox\nRuN x\n', '(from "busybox")\n(run "x")\n'],
      ['# escape=`\nFROM busybox\nRUN echo \\\nCOPY `\n a b\n', '(from "busybox")\n(run "echo \\\\")\n(copy "a" "b")\n'],
      ['FROM a\nRUN x \\\n', '(from "a")\n(run "x")\n'],
    ];
    for (const [text, want] of cases) assert.equal(dump(text), want, text);
  });

  it('marks the exec form', () => {
    const json = (text: string) => parseDockerfile(text).nodes.map((n) => n.json);
    assert.deepEqual(json('CMD []\nCMD a\nRUN ["a"]\nCOPY ["a", "b"]\nCOPY a b\nHEALTHCHECK CMD ["a"]\nHEALTHCHECK CMD a\nONBUILD RUN ["a"]'), [
      true, false, true, true, false, true, false, false,
    ]);
    assert.equal(parseDockerfile('ONBUILD RUN ["a"]').nodes[0].next?.json, true);
  });
});
