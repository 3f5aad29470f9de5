import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DnsRegistry } from './dns-registry.js';

const WEB_ID = '3f4e5d6c7b8a91a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7081920';
const DB_ID = '9a8b7c6d5e4f30211203948576afbecd0123456789abcdef0123456789abcdef';
const CLIENT_ID = 'c11e47c11e47c11e47c11e47c11e47c11e47c11e47c11e47c11e47c11e47c11e';

/** Network 'front' (10.1.0.0/24) with web, db and a client; network 'back' (10.2.0.0/24) with db alone. */
function twoNetworks(): DnsRegistry {
  const r = new DnsRegistry();
  r.addNetwork('n1', 'front');
  r.addNetwork('n2', 'back');
  r.addEndpoint('n1', { containerId: WEB_ID, containerName: 'web', aliases: ['www', 'Site'], ipv4: '10.1.0.2' });
  r.addEndpoint('n1', { containerId: CLIENT_ID, containerName: 'client', ipv4: '10.1.0.9' });
  r.addEndpoint('n2', { containerId: DB_ID, containerName: 'db', aliases: ['store'], ipv4: '10.2.0.3', ipv6: 'fd00:0:0:2::3' });
  return r;
}

describe('DNS registry', () => {
  it('resolves the container name, each alias and the short ID, without case', () => {
    const r = twoNetworks();
    for (const name of ['web', 'www', 'site', WEB_ID.slice(0, 12)]) {
      assert.deepEqual(r.lookup('10.1.0.9', name), { a: ['10.1.0.2'], aaaa: [] }, name);
    }
    assert.equal(r.lookup('10.1.0.9', WEB_ID), undefined, 'the full ID is no name');
    assert.equal(r.lookup('10.1.0.9', WEB_ID.slice(0, 11)), undefined);
  });

  it('resolves NAME.NETWORK for the name and the aliases, on the querier\'s networks only', () => {
    const r = twoNetworks();
    assert.deepEqual(r.lookup('10.1.0.9', 'web.front'), { a: ['10.1.0.2'], aaaa: [] });
    assert.deepEqual(r.lookup('10.1.0.9', 'www.front'), { a: ['10.1.0.2'], aaaa: [] });
    assert.equal(r.lookup('10.1.0.9', 'web.back'), undefined);
    assert.equal(r.lookup('10.1.0.9', 'web.example.com'), undefined, 'a search-domain name is not ours');
  });

  it('takes dots in container and network names as Docker does', () => {
    const r = new DnsRegistry();
    r.addNetwork('n', 'corp.lan');
    r.addEndpoint('n', { containerId: WEB_ID, containerName: 'web.v2', ipv4: '10.3.0.2' });
    r.addEndpoint('n', { containerId: CLIENT_ID, containerName: 'client', ipv4: '10.3.0.9' });
    assert.deepEqual(r.lookup('10.3.0.9', 'web.v2'), { a: ['10.3.0.2'], aaaa: [] });
    assert.deepEqual(r.lookup('10.3.0.9', 'web.v2.corp.lan'), { a: ['10.3.0.2'], aaaa: [] });
    assert.equal(r.lookup('10.3.0.9', 'web.v2.corp'), undefined);
  });

  it('keeps two networks apart: a querier sees the names of its own networks only', () => {
    const r = twoNetworks();
    assert.equal(r.lookup('10.1.0.9', 'db'), undefined, 'client on front does not see db on back');
    assert.equal(r.lookup('10.2.0.3', 'web'), undefined, 'db on back does not see web on front');
    assert.equal(r.lookup('10.9.9.9', 'web'), undefined, 'an unknown querier sees nothing');
    // db joins front as well: from either of its addresses it now sees both networks
    r.addEndpoint('n1', { containerId: DB_ID, containerName: 'db', ipv4: '10.1.0.3' });
    assert.deepEqual(r.lookup('10.2.0.3', 'web'), { a: ['10.1.0.2'], aaaa: [] });
    assert.deepEqual(r.lookup('fd00:0:0:2::3', 'web'), { a: ['10.1.0.2'], aaaa: [] });
    assert.deepEqual(r.lookup('10.1.0.3', 'store'), { a: ['10.2.0.3'], aaaa: ['fd00:0:0:2::3'] });
    // the first of the querier's networks that knows the name answers: db's own address on back
    assert.deepEqual(r.lookup('10.1.0.3', 'db'), { a: ['10.2.0.3'], aaaa: ['fd00:0:0:2::3'] });
    assert.deepEqual(r.lookup('10.1.0.3', 'db.front'), { a: ['10.1.0.3'], aaaa: [] });
    // and the client, on front only, sees db by its front address
    assert.deepEqual(r.lookup('10.1.0.9', 'db'), { a: ['10.1.0.3'], aaaa: [] });
  });

  it('answers every container of a shared alias, taking turns', () => {
    const r = twoNetworks();
    r.addEndpoint('n1', { containerId: DB_ID, containerName: 'web2', aliases: ['www'], ipv4: '10.1.0.4' });
    const firsts = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const found = r.lookup('10.1.0.9', 'www');
      assert.deepEqual([...(found?.a ?? [])].sort(), ['10.1.0.2', '10.1.0.4']);
      firsts.add(found!.a[0]);
    }
    assert.equal(firsts.size, 2, 'each address comes first in turn');
  });

  it('resolves a --link alias for the linking container only', () => {
    const r = twoNetworks();
    r.addEndpoint('n1', { containerId: CLIENT_ID, containerName: 'client', links: { database: 'web' }, ipv4: '10.1.0.9' });
    r.addEndpoint('n1', { containerId: DB_ID, containerName: 'db', ipv4: '10.1.0.3' });
    assert.deepEqual(r.lookup('10.1.0.9', 'database'), { a: ['10.1.0.2'], aaaa: [] });
    assert.deepEqual(r.lookup('10.1.0.9', 'database.front'), { a: ['10.1.0.2'], aaaa: [] });
    assert.equal(r.lookup('10.1.0.3', 'database'), undefined);
  });

  it('gives the IPv4 name with no IPv6 address an empty AAAA list, not a miss', () => {
    const r = twoNetworks();
    assert.deepEqual(r.lookup('10.1.0.9', 'web')?.aaaa, []);
  });

  it('names an address for PTR as name.network, on the querier\'s networks only', () => {
    const r = twoNetworks();
    assert.deepEqual(r.reverse('10.1.0.9', '10.1.0.2'), ['web.front']);
    assert.equal(r.reverse('10.1.0.9', '10.2.0.3'), undefined);
    assert.deepEqual(r.reverse('10.2.0.3', 'fd00:0000:0000:0002:0000:0000:0000:0003'), ['db.back']);
    assert.equal(r.reverse('10.9.9.9', '10.1.0.2'), undefined);
  });

  it('forgets a removed endpoint, and every endpoint of a removed network', () => {
    const r = twoNetworks();
    r.removeEndpoint('n1', WEB_ID);
    assert.equal(r.lookup('10.1.0.9', 'web'), undefined);
    assert.equal(r.lookup('10.1.0.9', 'www'), undefined);
    assert.equal(r.reverse('10.1.0.9', '10.1.0.2'), undefined);
    assert.equal(r.lookup('10.1.0.2', 'client'), undefined, 'its address no longer queries');
    r.removeNetwork('n2');
    assert.equal(r.lookup('10.2.0.3', 'db'), undefined);
    r.removeNetwork('n2');
    r.removeEndpoint('n1', WEB_ID);
  });

  it('replaces a container\'s endpoint on a network when it is added again', () => {
    const r = twoNetworks();
    r.addEndpoint('n1', { containerId: WEB_ID, containerName: 'web', ipv4: '10.1.0.7' });
    assert.deepEqual(r.lookup('10.1.0.9', 'web'), { a: ['10.1.0.7'], aaaa: [] });
    assert.equal(r.lookup('10.1.0.9', 'www'), undefined);
    assert.equal(r.reverse('10.1.0.9', '10.1.0.2'), undefined);
  });

  it('refuses an endpoint on a network it does not know', () => {
    assert.throws(() => new DnsRegistry().addEndpoint('nope', { containerId: WEB_ID, containerName: 'web', ipv4: '10.1.0.2' }), /no network nope/);
  });
});
