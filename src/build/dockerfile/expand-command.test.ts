import assert from 'node:assert/strict';
import { it } from 'node:test';
import { expandCommand } from './expand-command.js';
import { parseStages } from './instructions.js';
import { parseDockerfile } from './parse-dockerfile.js';
import { processWord } from './shell-lex.js';

const ENV = ['A=a', 'B=b c'];

function expanded(line: string) {
  const [cmd] = parseStages(parseDockerfile(`FROM x\n${line}`)).stages[0].commands;
  const fields: Record<string, unknown> = { ...expandCommand(cmd, (w) => processWord(w, ENV, '\\')) };
  for (const common of ['kind', 'original', 'line']) delete fields[common];
  return fields;
}

it('expands the words dockerd expands, and only those', () => {
  assert.deepEqual(expanded('ENV $A=${B} "x"="$A y"'), { pairs: [{ key: 'a', value: 'b c' }, { key: 'x', value: 'a y' }] });
  assert.deepEqual(expanded('LABEL $A=$B'), { pairs: [{ key: 'a', value: 'b c' }] });
  assert.deepEqual(expanded('COPY --from=$A --chown=$A --chmod=$A $A "$B" /$A/'), { sources: ['a', 'b c'], dest: '/a/', from: '$A', chown: 'a', chmod: '$A' });
  assert.deepEqual(expanded('ADD --chown=$A:$A $A /'), { sources: ['a'], dest: '/', chown: 'a:a', chmod: '' });
  assert.deepEqual(expanded('WORKDIR /$A'), { path: '/a' });
  assert.deepEqual(expanded('USER $A'), { user: 'a' });
  assert.deepEqual(expanded('VOLUME $A ${B}'), { volumes: ['a', 'b c'] });
  assert.deepEqual(expanded('STOPSIGNAL $A'), { signal: 'a' });
  assert.deepEqual(expanded('ARG $A=$B C'), { args: [{ key: 'a', value: 'b c' }, { key: 'C' }] });
  assert.deepEqual(expanded('RUN echo $A'), { cmdLine: ['echo $A'], prependShell: true, flagsUsed: [], mounts: [] });
  assert.deepEqual(expanded('EXPOSE $A'), { ports: ['$A'] });
  assert.deepEqual(expanded('ONBUILD RUN $A'), { expression: 'RUN $A' });
});

it("fails on the first word that does not expand, with the lexer's message", () => {
  assert.throws(() => expanded('COPY --chown=${A ${B /'), { message: 'failed to process "${A": missing \':\' in substitution' });
});
