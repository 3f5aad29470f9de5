import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EngineEvent } from '../../../events/event.js';
import { encodeEventMessage, toEventMessage } from './to-api.js';

const at = 1795349934013676001n;

function event(type: EngineEvent['type'], attributes: Record<string, string> = {}): EngineEvent {
  return { type, action: 'create', actor: { id: 'abc123', attributes }, scope: 'local', timeNanos: at };
}

describe('toEventMessage and encodeEventMessage', () => {
  it('prints timeNano exactly, beyond a double\'s precision, last as dockerd does', () => {
    const line = encodeEventMessage(toEventMessage(event('daemon')));
    assert.ok(line.endsWith(',"time":1795349934,"timeNano":1795349934013676001}'), line);
    assert.equal(JSON.parse(line).Type, 'daemon');
  });
  it('fills the legacy status, id and from of container events', () => {
    const line = encodeEventMessage(toEventMessage(event('container', { image: 'busybox', name: 'c1' })));
    assert.ok(line.startsWith('{"status":"create","id":"abc123","from":"busybox","Type":"container","Action":"create"'), line);
  });
  it('fills status and id of image events, without from', () => {
    const msg = toEventMessage(event('image', { name: 'busybox:latest' }));
    assert.equal(msg.status, 'create');
    assert.equal(msg.id, 'abc123');
    assert.equal('from' in msg, false);
  });
  it('leaves the legacy fields off other events', () => {
    const msg = toEventMessage(event('network', { name: 'n' }));
    assert.deepEqual(['status', 'id', 'from'].filter((k) => k in msg), []);
  });
});
