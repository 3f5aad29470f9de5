import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readDockerignore } from './dockerignore.js';

test('readDockerignore: comments, blank lines, cleaning, leading / and exceptions', () => {
  const content = 'test1\n/test2\n/a/file/here\n\nlastfile\n# this is a comment\n! /inverted/abs/path\n!\n! \n';
  assert.deepEqual(readDockerignore(Buffer.from(content)), ['test1', 'test2', 'a/file/here', 'lastfile', '!inverted/abs/path', '!', '!']);
});

test('readDockerignore: a comment is only one at the start of the line; CRLF; BOM; the last line without newline', () => {
  const content = '\ufeff  # not a comment\r\n#comment\r\n./a/../b/\r\n/\r\nlast';
  assert.deepEqual(readDockerignore(Buffer.from(content)), ['# not a comment', 'b', '/', 'last']);
});

test('readDockerignore: a line longer than bufio.Scanner takes is an error', () => {
  assert.throws(() => readDockerignore(Buffer.from(`${'a'.repeat(70_000)}\n`)), /token too long/);
});
