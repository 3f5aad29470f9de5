import assert from 'node:assert/strict';
import { test } from 'node:test';
import { humanDuration } from './human-duration.js';

test('the words docker ps uses', () => {
  assert.equal(humanDuration(500), 'Less than a second');
  assert.equal(humanDuration(1500), '1 second');
  assert.equal(humanDuration(59_000), '59 seconds');
  assert.equal(humanDuration(61_000), 'About a minute');
  assert.equal(humanDuration(30 * 60_000), '30 minutes');
  assert.equal(humanDuration(75 * 60_000), 'About an hour');
  assert.equal(humanDuration(5 * 3_600_000), '5 hours');
  assert.equal(humanDuration(3 * 86_400_000), '3 days');
  assert.equal(humanDuration(20 * 86_400_000), '2 weeks');
  assert.equal(humanDuration(90 * 86_400_000), '3 months');
  assert.equal(humanDuration(800 * 86_400_000), '2 years');
});
