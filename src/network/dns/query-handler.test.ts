import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { after, before, describe, it } from 'node:test';
import dnsPacket from 'dns-packet';
import { DnsRegistry } from './dns-registry.js';
import { QueryHandler } from './query-handler.js';
import { UpstreamForwarder } from './upstream-forwarder.js';

/** An upstream that takes queries and never answers. */
const SILENT = '127.53.2.2';
const silent = dgram.createSocket('udp4');
before(() => new Promise<void>((resolve) => silent.bind(53, SILENT, resolve)));
after(() => new Promise<void>((resolve) => silent.close(() => resolve())));

const query = (name: string) => dnsPacket.encode({ type: 'query', id: 1, questions: [{ name, type: 'A' }] });
const rcode = (reply: Buffer | undefined) => (dnsPacket.decode(reply!) as unknown as { rcode: string }).rcode;

describe('query handler', () => {
  it('refuses a query to forward while as many as allowed are in flight, as Docker past its 1024', async () => {
    const forwarder = new UpstreamForwarder({ upstreams: () => [{ address: SILENT }], timeoutMs: 200, maxInFlight: 1 });
    const handler = new QueryHandler(new DnsRegistry(), forwarder);
    const first = handler.handle(query('a.example'), '127.53.2.9', 'udp');
    assert.equal(rcode(await handler.handle(query('b.example'), '127.53.2.9', 'udp')), 'REFUSED');
    assert.equal(rcode(await first), 'SERVFAIL');
    assert.equal(forwarder.busy, false);
  });
});
