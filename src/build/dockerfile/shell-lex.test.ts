import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DockerfileError } from './dockerfile-error.js';
import { processWord, processWords } from './shell-lex.js';

// buildkit's shell/envVarTest (Unix and all-platform lines): word, then its expansion or 'error'
const ENV_VAR_TEST: Array<[string, string]> = [
  ["hello", "hello"],
  ["he'll'o", "hello"],
  ["he'llo", "error"],
  ["he\\'llo", "he'llo"],
  ["he\\\\'llo", "error"],
  ["abc\\tdef", "abctdef"],
  ["\"abc\\tdef\"", "abc\\tdef"],
  ["\"abc\\\\tdef\"", "abc\\tdef"],
  ["'abc\\tdef'", "abc\\tdef"],
  ["hello\\", "hello"],
  ["hello\\\\", "hello\\"],
  ["\"hello", "error"],
  ["\"hello\\\"", "error"],
  ["\"hel'lo\"", "hel'lo"],
  ["'hello", "error"],
  ["'hello\\'", "hello\\"],
  ["'hello\\there'", "hello\\there"],
  ["'hello\\\\there'", "hello\\\\there"],
  ["\"''\"", "''"],
  ["$.", "$."],
  ["he$1x", "hex"],
  ["he$.x", "he$.x"],
  ["he$pwd.", "he."],
  ["he$PWD", "he/home"],
  ["he\\$PWD", "he$PWD"],
  ["he\\\\$PWD", "he\\/home"],
  ["\"he\\$PWD\"", "he$PWD"],
  ["\"he\\\\$PWD\"", "he\\/home"],
  ["\\${}", "${}"],
  ["\\${}aaa", "${}aaa"],
  ["he\\${}", "he${}"],
  ["he\\${}xx", "he${}xx"],
  ["${}", "error"],
  ["${}aaa", "error"],
  ["he${}", "error"],
  ["he${}xx", "error"],
  ["he${hi}", "he"],
  ["he${hi}xx", "hexx"],
  ["he${PWD}", "he/home"],
  ["he${.}", "error"],
  ["he${XXX:-000}xx", "he000xx"],
  ["he${PWD:-000}xx", "he/homexx"],
  ["he${XXX:-$PWD}xx", "he/homexx"],
  ["he${XXX:-${PWD:-yyy}}xx", "he/homexx"],
  ["he${XXX:-${YYY:-yyy}}xx", "heyyyxx"],
  ["he${XXX:YYY}", "error"],
  ["he${XXX?}", "error"],
  ["he${XXX:?}", "error"],
  ["he${PWD?}", "he/home"],
  ["he${PWD:?}", "he/home"],
  ["he${NULL?}", "he"],
  ["he${NULL:?}", "error"],
  ["he${XXX:+${PWD}}xx", "hexx"],
  ["he${PWD:+${XXX}}xx", "hexx"],
  ["he${PWD:+${SHELL}}xx", "hebashxx"],
  ["he${XXX:+000}xx", "hexx"],
  ["he${PWD:+000}xx", "he000xx"],
  ["'he${XX}'", "he${XX}"],
  ["\"he${PWD}\"", "he/home"],
  ["\"he'$PWD'\"", "he'/home'"],
  ["\"$PWD\"", "/home"],
  ["'$PWD'", "$PWD"],
  ["'\\$PWD'", "\\$PWD"],
  ["'\"hello\"'", "\"hello\""],
  ["he\\$PWD", "he$PWD"],
  ["\"he\\$PWD\"", "he$PWD"],
  ["'he\\$PWD'", "he\\$PWD"],
  ["he${PWD", "error"],
  ["he${PWD:=000}xx", "error"],
  ["he${PWD:+${PWD}:}xx", "he/home:xx"],
  ["he${XXX:-\\$PWD:}xx", "he$PWD:xx"],
  ["he${XXX:-\\${PWD}z}xx", "he${PWDz}xx"],
  ["안녕하세요", "안녕하세요"],
  ["안'녕'하세요", "안녕하세요"],
  ["안'녕하세요", "error"],
  ["안녕\\'하세요", "안녕'하세요"],
  ["안\\\\'녕하세요", "error"],
  ["안녕\\t하세요", "안녕t하세요"],
  ["\"안녕\\t하세요\"", "안녕\\t하세요"],
  ["'안녕\\t하세요", "error"],
  ["안녕하세요\\", "안녕하세요"],
  ["안녕하세요\\\\", "안녕하세요\\"],
  ["\"안녕하세요", "error"],
  ["\"안녕하세요\\\"", "error"],
  ["\"안녕'하세요\"", "안녕'하세요"],
  ["'안녕하세요", "error"],
  ["'안녕하세요\\'", "안녕하세요\\"],
  ["안녕$1x", "안녕x"],
  ["안녕$.x", "안녕$.x"],
  ["안녕$pwd.", "안녕."],
  ["안녕$PWD", "안녕/home"],
  ["안녕\\$PWD", "안녕$PWD"],
  ["안녕\\\\$PWD", "안녕\\/home"],
  ["안녕\\${}", "안녕${}"],
  ["안녕\\${}xx", "안녕${}xx"],
  ["안녕${}", "error"],
  ["안녕${}xx", "error"],
  ["안녕${hi}", "안녕"],
  ["안녕${hi}xx", "안녕xx"],
  ["안녕${PWD}", "안녕/home"],
  ["안녕${.}", "error"],
  ["안녕${XXX:-000}xx", "안녕000xx"],
  ["안녕${PWD:-000}xx", "안녕/homexx"],
  ["안녕${XXX:-$PWD}xx", "안녕/homexx"],
  ["안녕${XXX:-${PWD:-yyy}}xx", "안녕/homexx"],
  ["안녕${XXX:-${YYY:-yyy}}xx", "안녕yyyxx"],
  ["안녕${XXX:YYY}", "error"],
  ["안녕${XXX:+${PWD}}xx", "안녕xx"],
  ["안녕${PWD:+${XXX}}xx", "안녕xx"],
  ["안녕${PWD:+${SHELL}}xx", "안녕bashxx"],
  ["안녕${XXX:+000}xx", "안녕xx"],
  ["안녕${PWD:+000}xx", "안녕000xx"],
  ["'안녕${XX}'", "안녕${XX}"],
  ["\"안녕${PWD}\"", "안녕/home"],
  ["\"안녕'$PWD'\"", "안녕'/home'"],
  ["'\"안녕\"'", "\"안녕\""],
  ["안녕\\$PWD", "안녕$PWD"],
  ["\"안녕\\$PWD\"", "안녕$PWD"],
  ["'안녕\\$PWD'", "안녕\\$PWD"],
  ["안녕${PWD", "error"],
  ["안녕${PWD:=000}xx", "error"],
  ["안녕${PWD:+${PWD}:}xx", "안녕/home:xx"],
  ["안녕${XXX:-\\$PWD:}xx", "안녕$PWD:xx"],
  ["안녕${XXX:-\\${PWD}z}xx", "안녕${PWDz}xx"],
  ["$KOREAN", "한국어"],
  ["안녕$KOREAN", "안녕한국어"],
  ["${{aaa}", "error"],
  ["${aaa}}", "}"],
  ["${aaa", "error"],
  ["${{aaa:-bbb}", "error"],
  ["${aaa:-bbb}}", "bbb}"],
  ["${aaa:-bbb", "error"],
  ["${aaa:-bbb}", "bbb"],
  ["${aaa:-${bbb:-ccc}}", "ccc"],
  ["${aaa:-bbb ${foo}", "error"],
  ["${aaa:-bbb {foo}", "bbb {foo"],
  ["${:}", "error"],
  ["${:-bbb}", "error"],
  ["${:+bbb}", "error"],
  ["$1", ""],
  ["${1}", ""],
  ["${1:+bbb}", ""],
  ["${1:-bbb}", "bbb"],
  ["$2", ""],
  ["${2}", ""],
  ["${2:+bbb}", ""],
  ["${2:-bbb}", "bbb"],
  ["$3", ""],
  ["${3}", ""],
  ["${3:+bbb}", ""],
  ["${3:-bbb}", "bbb"],
  ["$4", ""],
  ["${4}", ""],
  ["${4:+bbb}", ""],
  ["${4:-bbb}", "bbb"],
  ["$5", ""],
  ["${5}", ""],
  ["${5:+bbb}", ""],
  ["${5:-bbb}", "bbb"],
  ["$6", ""],
  ["${6}", ""],
  ["${6:+bbb}", ""],
  ["${6:-bbb}", "bbb"],
  ["$7", ""],
  ["${7}", ""],
  ["${7:+bbb}", ""],
  ["${7:-bbb}", "bbb"],
  ["$8", ""],
  ["${8}", ""],
  ["${8:+bbb}", ""],
  ["${8:-bbb}", "bbb"],
  ["$9", ""],
  ["${9}", ""],
  ["${9:+bbb}", ""],
  ["${9:-bbb}", "bbb"],
  ["$999", ""],
  ["${999}", ""],
  ["${999:+bbb}", ""],
  ["${999:-bbb}", "bbb"],
  ["$999aaa", "aaa"],
  ["${999}aaa", "aaa"],
  ["${999:+bbb}aaa", "aaa"],
  ["${999:-bbb}aaa", "bbbaaa"],
  ["$001", ""],
  ["${001}", ""],
  ["${001:+bbb}", ""],
  ["${001:-bbb}", "bbb"],
  ["$001aaa", "aaa"],
  ["${001}aaa", "aaa"],
  ["${001:+bbb}aaa", "aaa"],
  ["${001:-bbb}aaa", "bbbaaa"],
  ["$@", ""],
  ["${@}", ""],
  ["${@:+bbb}", ""],
  ["${@:-bbb}", "bbb"],
  ["$@@@", "@@"],
  ["$@aaa", "aaa"],
  ["${@}aaa", "aaa"],
  ["${@:+bbb}aaa", "aaa"],
  ["${@:-bbb}aaa", "bbbaaa"],
  ["$*", ""],
  ["${*}", ""],
  ["${*:+bbb}", ""],
  ["${*:-bbb}", "bbb"],
  ["$#", ""],
  ["${#}", ""],
  ["${#:+bbb}", ""],
  ["${#:-bbb}", "bbb"],
  ["$?", ""],
  ["${?}", ""],
  ["${?:+bbb}", ""],
  ["${?:-bbb}", "bbb"],
  ["$-", ""],
  ["${-}", ""],
  ["${-:+bbb}", ""],
  ["${-:-bbb}", "bbb"],
  ["$$", ""],
  ["${$}", ""],
  ["${$:+bbb}", ""],
  ["${$:-bbb}", "bbb"],
  ["$!", ""],
  ["${!}", ""],
  ["${!:+bbb}", ""],
  ["${!:-bbb}", "bbb"],
  ["$0", ""],
  ["${0}", ""],
  ["${0:+bbb}", ""],
  ["${0:-bbb}", "bbb"],
];

// buildkit's shell/wordsTest: ENV lines add to the environment; word, then its words or 'error'
const WORDS_TEST: Array<[string, string[]] | [string]> = [
  ["hello", ["hello"]],
  ["hello${hi}bye", ["hellobye"]],
  ["hi=hi"],
  ["hello${hi}bye", ["hellohibye"]],
  ["space=abc  def"],
  ["hello${space}bye", ["helloabc", "defbye"]],
  ["hello\"${space}\"bye", ["helloabc  defbye"]],
  ["hello \"${space}\"bye", ["hello", "abc  defbye"]],
  ["leading=  ab c"],
  ["hello${leading}def", ["hello", "ab", "cdef"]],
  ["hello\"${leading}\" def", ["hello  ab c", "def"]],
  ["hello\"${leading}\"", ["hello  ab c"]],
  ["hello${leading}", ["hello", "ab", "c"]],
  ["trailing=ab c   "],
  ["hello${trailing}", ["helloab", "c"]],
  ["hello${trailing}d", ["helloab", "c", "d"]],
  ["hello\"${trailing}\"d", ["helloab c   d"]],
  ["hel\"lo${trailing}\"", ["helloab c   "]],
  ["hello\" there  \"", ["hello there  "]],
  ["hello there", ["hello", "there"]],
  ["hello\\ there", ["hello there"]],
  ["hello\" there", ["error"]],
  ["hello\\\" there", ["hello\"", "there"]],
  ["hello\"\\\\there\"", ["hello\\there"]],
  ["hello\"\\there\"", ["hello\\there"]],
  ["hello'\\\\there'", ["hello\\\\there"]],
  ["hello'\\there'", ["hello\\there"]],
  ["hello'$there'", ["hello$there"]],
];

const ENV = ['PWD=/home', 'SHELL=bash', 'KOREAN=한국어', 'NULL='];

function lexError(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  return 'no error';
}

describe('processWord', () => {
  it("expands buildkit's envVarTest cases", () => {
    const map = new Map(ENV.map((e) => e.split('=') as [string, string]));
    for (const [word, want] of ENV_VAR_TEST) {
      for (const env of [ENV, map]) {
        if (want === 'error') assert.throws(() => processWord(word, env, '\\'), DockerfileError, word);
        else assert.equal(processWord(word, env, '\\'), want, word);
      }
    }
  });

  it('honours ${VAR?msg} and ${VAR:?msg}', () => {
    const set = ['VAR=plain', 'ARG=x'];
    const empty = ['VAR=', 'ARG=x'];
    const unset = ['ARG=x'];
    assert.equal(processWord('${VAR:?message here$ARG}', set, '\\'), 'plain');
    assert.equal(lexError(() => processWord('${VAR:?message here$ARG}', empty, '\\')), 'failed to process "${VAR:?message here$ARG}": VAR: message herex');
    assert.equal(lexError(() => processWord('${VAR:?message here$ARG}', unset, '\\')), 'failed to process "${VAR:?message here$ARG}": VAR: message herex');
    assert.equal(processWord('${VAR?message here$ARG}', set, '\\'), 'plain');
    assert.equal(processWord('${VAR?message here$ARG}', empty, '\\'), '');
    assert.equal(lexError(() => processWord('${VAR?message here$ARG}', unset, '\\')), 'failed to process "${VAR?message here$ARG}": VAR: message herex');
    assert.equal(lexError(() => processWord('${VAR?}', unset, '\\')), 'failed to process "${VAR?}": VAR: is not allowed to be unset');
    assert.equal(lexError(() => processWord('${VAR:?}', empty, '\\')), 'failed to process "${VAR:?}": VAR: is not allowed to be empty');
  });

  it("fails with dockerd's messages", () => {
    const cases: Array<[string, string]> = [
      ['${foo', 'failed to process "${foo": missing \':\' in substitution'],
      ['${', 'failed to process "${": syntax error: missing \'}\''],
      ['${}', 'failed to process "${}": syntax error: bad substitution'],
      ['${:-x}', 'failed to process "${:-x}": syntax error: bad substitution'],
      ['${{a}', 'failed to process "${{a}": syntax error: bad substitution'],
      ['${a-b}', 'failed to process "${a-b}": missing \':\' in substitution'],
      ['${a+b}', 'failed to process "${a+b}": missing \':\' in substitution'],
      ['${a:=b}', 'failed to process "${a:=b}": unsupported modifier (=) in substitution'],
      ['${a:-b', 'failed to process "${a:-b": syntax error: missing \'}\''],
      ['${a:-${b:x}}', 'failed to process "${a:-${b:x}}": unsupported modifier (x) in substitution'],
      ['"a', 'failed to process "\\"a": unexpected end of statement while looking for matching double-quote'],
      ["'a", 'failed to process "\'a": unexpected end of statement while looking for matching single-quote'],
      ['"a\\', 'failed to process "\\"a\\\\": unexpected end of statement while looking for matching double-quote'],
    ];
    for (const [word, message] of cases) assert.equal(lexError(() => processWord(word, [], '\\')), message, word);
  });

  it('escapes with the backtick when that is the escape token', () => {
    assert.equal(processWord('a`$PWD\\b', ENV, '`'), 'a$PWD\\b');
    assert.equal(processWord('"C:\\dir `"x`""', ENV, '`'), 'C:\\dir "x"');
    assert.equal(processWord('a\\$PWD', ENV, '`'), 'a\\/home');
  });

  it('takes the last of repeated names, an entry without = as empty', () => {
    assert.equal(processWord('$car', ['foo=bar', 'car=hat', 'car=bike'], '\\'), 'bike');
    assert.equal(processWord('${foo:-unset}${foo?}', ['foo'], '\\'), 'unset');
    assert.equal(processWord('$foo', ['foo=a=b'], '\\'), 'a=b');
  });

  it('reads names of Unicode letters and digits, and skips a byte order mark', () => {
    assert.equal(processWord('$안녕x', ['안녕x=1'], '\\'), '1');
    assert.equal(processWord('\uFEFF$a', ['a=1'], '\\'), '1');
    assert.equal(processWord('a\uFEFF', [], '\\'), 'a\uFEFF');
  });
});

describe('processWords', () => {
  it("splits buildkit's wordsTest cases", () => {
    const env: string[] = [];
    for (const [word, want] of WORDS_TEST) {
      if (want === undefined) {
        env.push(word);
        continue;
      }
      let got: string[];
      try {
        got = processWords(word, env, '\\');
      } catch {
        got = ['error'];
      }
      assert.deepEqual(got, want, word);
    }
  });

  it('splits an expansion for EXPOSE', () => {
    assert.deepEqual(processWords('$PORTS', ['PORTS=80 443/udp'], '\\'), ['80', '443/udp']);
    assert.deepEqual(processWords('"$PORTS"', ['PORTS=80 443/udp'], '\\'), ['80 443/udp']);
    assert.deepEqual(processWords('""', [], '\\'), []);
  });
});
