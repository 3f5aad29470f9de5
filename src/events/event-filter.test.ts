import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FilterArgs } from '../lib/filters.js';
import type { EngineEvent, EventType } from './event.js';
import { eventMatches } from './event-filter.js';

function ev(type: EventType, action: string, id: string, attributes: Record<string, string> = {}, scope: EngineEvent['scope'] = 'local'): EngineEvent {
  return { type, action, actor: { id, attributes }, scope, timeNanos: 1_600_000_000_000_000_000n };
}

const matches = (filters: Record<string, string[]>, e: EngineEvent) => eventMatches(FilterArgs.fromJson(JSON.stringify(filters)), e);

const CID = '4f2a9c0d1e3b5a7f9c1d3e5f7a9b1c3d5e7f9a1b3c5d7e9f1a3b5c7d9e1f3a5b';
const IMAGE_ID = 'sha256:9c7a54a9a43cca047013b82af109fe963fde787f63f9e016fdc3384500c2823d';
const DAEMON_ID = 'a196000b-9d7b-4384-9233-b68f23881a92';

const containerStart = ev('container', 'start', CID, { image: 'busybox', name: 'web', 'com.example.tier': 'front' });
const imagePull = ev('image', 'pull', 'busybox:latest', { name: 'busybox' });
const daemonReload = ev('daemon', 'reload', DAEMON_ID, { debug: 'false', labels: '[rack=r1]', name: 'host1' });
const volumeCreate = ev('volume', 'create', 'data', { driver: 'local' });
const networkConnect = ev('network', 'connect', 'f00dfeed', { name: 'bridge', type: 'bridge', container: CID });

describe('eventMatches', () => {
  it('matches every event without filters', () => {
    for (const e of [containerStart, imagePull, daemonReload, volumeCreate, networkConnect]) {
      assert.equal(eventMatches(FilterArgs.empty(), e), true);
    }
  });

  it('ignores keys it does not know', () => {
    assert.equal(matches({ nosuchkey: ['x'] }, daemonReload), true);
  });

  describe('type', () => {
    it('matches the type exactly', () => {
      assert.equal(matches({ type: ['daemon'] }, daemonReload), true);
      assert.equal(matches({ type: ['container'] }, daemonReload), false);
      assert.equal(matches({ type: ['dae'] }, daemonReload), false);
    });

    it('matches any of several types', () => {
      assert.equal(matches({ type: ['container', 'daemon'] }, daemonReload), true);
      assert.equal(matches({ type: ['container', 'daemon'] }, containerStart), true);
      assert.equal(matches({ type: ['container', 'daemon'] }, volumeCreate), false);
    });

    it('matches every event with an empty list, as dockerd (GET /events?filters={"type":[]} is unfiltered there)', () => {
      assert.equal(matches({ type: [] }, daemonReload), true);
    });
  });

  describe('event', () => {
    it('matches the action exactly', () => {
      assert.equal(matches({ event: ['start'] }, containerStart), true);
      assert.equal(matches({ event: ['sta'] }, containerStart), false);
      assert.equal(matches({ event: ['restart'] }, containerStart), false);
      assert.equal(matches({ event: ['die', 'start'] }, containerStart), true);
    });

    for (const [filter, action] of [
      ['health_status', 'health_status: healthy'],
      ['health_status', 'health_status: unhealthy'],
      ['exec_create', 'exec_create: sh -c ls'],
      ['exec_start', 'exec_start: sh -c ls'],
    ]) {
      it(`matches "${action}" by "${filter}", a prefix (dockerd #25798)`, () => {
        const e = ev('container', action, CID, { image: 'busybox' });
        assert.equal(matches({ event: [filter] }, e), true);
        assert.equal(matches({ event: [action] }, e), true);
      });
    }

    it('does not match by prefix without one of those three values', () => {
      const e = ev('container', 'health_status: healthy', CID);
      assert.equal(matches({ event: ['health'] }, e), false);
      assert.equal(matches({ event: ['health_status:'] }, e), false);
      assert.equal(matches({ event: ['exec_die'] }, ev('container', 'exec_die', CID)), true);
      assert.equal(matches({ event: ['exec'] }, ev('container', 'exec_die', CID)), false);
    });

    it('matches every value by prefix once one of the three is given, as dockerd', () => {
      assert.equal(matches({ event: ['exec_start', 'sta'] }, containerStart), true);
      assert.equal(matches({ event: ['exec_start', 'die'] }, containerStart), false);
      assert.equal(matches({ event: ['health_status'] }, ev('container', 'exec_start: sh', CID)), false);
    });
  });

  describe('scope', () => {
    it('matches the scope exactly', () => {
      assert.equal(matches({ scope: ['local'] }, daemonReload), true);
      assert.equal(matches({ scope: ['swarm'] }, daemonReload), false);
      assert.equal(matches({ scope: ['swarm'] }, ev('service', 'create', 'svc1', {}, 'swarm')), true);
    });
  });

  describe('names and IDs', () => {
    it('matches the daemon by its ID, a prefix of it, or its name', () => {
      assert.equal(matches({ daemon: [DAEMON_ID] }, daemonReload), true);
      assert.equal(matches({ daemon: ['a196'] }, daemonReload), true);
      assert.equal(matches({ daemon: ['host1'] }, daemonReload), true);
      assert.equal(matches({ daemon: ['host'] }, daemonReload), true);
      assert.equal(matches({ daemon: ['b196'] }, daemonReload), false);
      assert.equal(matches({ daemon: ['host2'] }, daemonReload), false);
    });

    it('matches a container by ID, ID prefix or name', () => {
      assert.equal(matches({ container: [CID] }, containerStart), true);
      assert.equal(matches({ container: ['4f2a9c'] }, containerStart), true);
      assert.equal(matches({ container: ['web'] }, containerStart), true);
      assert.equal(matches({ container: ['db'] }, containerStart), false);
      assert.equal(matches({ container: ['9c0d'] }, containerStart), false);
    });

    it('leaves out events whose actor is neither', () => {
      assert.equal(matches({ container: ['web'] }, daemonReload), false);
      assert.equal(matches({ daemon: ['host1'] }, containerStart), false);
      assert.equal(matches({ container: ['web'] }, volumeCreate), false);
    });

    const byType: Array<[EventType, EngineEvent]> = [
      ['plugin', ev('plugin', 'enable', 'abc123', { name: 'vieux/sshfs:latest' })],
      ['volume', volumeCreate],
      ['network', networkConnect],
      ['node', ev('node', 'update', 'n0de1d', { name: 'worker1' }, 'swarm')],
      ['service', ev('service', 'create', 's3rv1c', { name: 'api' }, 'swarm')],
      ['secret', ev('secret', 'create', 's3cr3t', { name: 'tls-key' }, 'swarm')],
      ['config', ev('config', 'create', 'c0nf1g', { name: 'app-conf' }, 'swarm')],
    ];
    for (const [type, e] of byType) {
      it(`matches ${type} events by ID prefix or name`, () => {
        assert.equal(matches({ [type]: [e.actor.id.slice(0, 3)] }, e), true);
        if (e.actor.attributes.name) assert.equal(matches({ [type]: [e.actor.attributes.name] }, e), true);
        assert.equal(matches({ [type]: ['zzz'] }, e), false);
        assert.equal(matches({ [type]: [e.actor.id.slice(0, 3)] }, daemonReload), false);
      });
    }

    it('needs every given name key to match', () => {
      assert.equal(matches({ network: ['bridge'], container: ['web'] }, networkConnect), false);
      assert.equal(matches({ network: ['bridge'], type: ['network'] }, networkConnect), true);
    });
  });

  describe('image', () => {
    it('matches image events by ID and by name', () => {
      const e = ev('image', 'tag', IMAGE_ID, { name: 'busybox:latest' });
      assert.equal(matches({ image: [IMAGE_ID] }, e), true);
      assert.equal(matches({ image: ['busybox:latest'] }, e), true);
      assert.equal(matches({ image: ['busybox'] }, e), true);
      assert.equal(matches({ image: ['busybox:1.36'] }, e), false);
      assert.equal(matches({ image: ['sha256:9c7a'] }, e), false);
      assert.equal(matches({ image: ['alpine'] }, e), false);
    });

    it('matches image events whose ID is the reference (pull), without the tag', () => {
      assert.equal(matches({ image: ['busybox:latest'] }, imagePull), true);
      assert.equal(matches({ image: ['busybox'] }, imagePull), true);
    });

    it('matches container events by their image attribute, with and without the tag', () => {
      const fromTagged = ev('container', 'create', CID, { image: 'busybox:1.36', name: 'web' });
      assert.equal(matches({ image: ['busybox:1.36'] }, fromTagged), true);
      assert.equal(matches({ image: ['busybox'] }, fromTagged), true);
      assert.equal(matches({ image: ['busybox:latest'] }, fromTagged), false);
      assert.equal(matches({ image: ['busy'] }, fromTagged), false);
      // the container's own name is not its image
      assert.equal(matches({ image: ['web'] }, fromTagged), false);

      assert.equal(matches({ image: ['busybox'] }, containerStart), true);
      assert.equal(matches({ image: ['busybox:latest'] }, containerStart), false);
    });

    it('does not look at a container event\'s name attribute, nor an image event\'s image attribute', () => {
      assert.equal(matches({ image: ['busybox'] }, ev('container', 'start', CID, { name: 'busybox' })), false);
      assert.equal(matches({ image: ['busybox'] }, ev('image', 'delete', IMAGE_ID, { image: 'busybox' })), false);
    });

    const familiar: Array<[string, string]> = [
      ['docker.io/library/busybox:latest', 'busybox'],
      ['library/busybox:latest', 'busybox'],
      ['docker.io/foo/bar:1', 'foo/bar'],
      ['foo/bar:1', 'foo/bar'],
      ['docker.io/library/foo/bar', 'library/foo/bar'],
      ['localhost:5000/app:v1', 'localhost:5000/app'],
      ['localhost:5000/app', 'localhost:5000/app'],
      ['ghcr.io/org/app:2.0', 'ghcr.io/org/app'],
      ['busybox@sha256:9c7a54a9a43cca047013b82af109fe963fde787f63f9e016fdc3384500c2823d', 'busybox'],
      ['busybox:1.36@sha256:9c7a54a9a43cca047013b82af109fe963fde787f63f9e016fdc3384500c2823d', 'busybox'],
    ];
    for (const [image, name] of familiar) {
      it(`matches a container from ${image} by "${name}" and by the full reference`, () => {
        const e = ev('container', 'start', CID, { image });
        assert.equal(matches({ image: [name] }, e), true);
        assert.equal(matches({ image: [image] }, e), true);
      });
    }

    it('does not strip a port as if it were a tag', () => {
      const e = ev('container', 'start', CID, { image: 'localhost:5000/app' });
      assert.equal(matches({ image: ['localhost'] }, e), false);
    });

    it('leaves out events without an image', () => {
      assert.equal(matches({ image: ['busybox'] }, daemonReload), false);
      assert.equal(matches({ image: ['busybox'] }, volumeCreate), false);
    });
  });

  describe('label', () => {
    it('matches attributes by key or key=value', () => {
      assert.equal(matches({ label: ['com.example.tier'] }, containerStart), true);
      assert.equal(matches({ label: ['com.example.tier=front'] }, containerStart), true);
      assert.equal(matches({ label: ['com.example.tier=back'] }, containerStart), false);
      assert.equal(matches({ label: ['labels=[rack=r1]'] }, daemonReload), true);
      assert.equal(matches({ label: ['debug=true'] }, daemonReload), false);
    });

    it('needs every label to match', () => {
      assert.equal(matches({ label: ['com.example.tier=front', 'name=web'] }, containerStart), true);
      assert.equal(matches({ label: ['com.example.tier=front', 'name=db'] }, containerStart), false);
    });

    it('leaves out an event without attributes', () => {
      assert.equal(matches({ label: ['a'] }, ev('container', 'start', CID)), false);
    });
  });

  it('needs every key to match, and any value of a key', () => {
    const f = { type: ['container', 'image'], event: ['start', 'pull'], image: ['busybox'] };
    assert.equal(matches(f, containerStart), true);
    assert.equal(matches(f, imagePull), true);
    assert.equal(matches(f, ev('container', 'die', CID, { image: 'busybox' })), false);
    assert.equal(matches(f, ev('container', 'start', CID, { image: 'alpine' })), false);
    assert.equal(matches(f, daemonReload), false);
  });
});
