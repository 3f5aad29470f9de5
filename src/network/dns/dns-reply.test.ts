import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import dnsPacket, { type Answer, type DecodedPacket } from 'dns-packet';
import { Rcode } from './dns-header.js';
import { dnsReply, encodeReply } from './dns-reply.js';

const srvQuery = (edns: boolean): DecodedPacket =>
  dnsPacket.decode(
    dnsPacket.encode({
      type: 'query',
      id: 7,
      questions: [{ name: '_http._tcp.web', type: 'SRV' }],
      additionals: edns ? [{ type: 'OPT', name: '.', udpPayloadSize: 512, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }] : [],
    }),
  );

/** n SRV answers, each with its target's A record. */
function srv(n: number): [Answer[], Answer[]] {
  const targets = Array.from({ length: n }, (_, i) => `web.${i}.abcdefghijklmnopqrstuvwxy.appnet`);
  return [
    targets.map((target): Answer => ({ type: 'SRV', name: '_http._tcp.web', ttl: 600, data: { priority: 0, weight: 0, port: 80, target } })),
    targets.map((target, i): Answer => ({ type: 'A', name: target, ttl: 600, data: `10.0.1.${i + 1}` })),
  ];
}

const decode = (bytes: Buffer) => dnsPacket.decode(bytes);

describe('DNS reply', () => {
  it('puts additional records before its own OPT record', () => {
    const [answers, additionals] = srv(1);
    const reply = decode(encodeReply(dnsReply(srvQuery(true), Rcode.noError, answers, additionals), 512));
    assert.deepEqual(reply.additionals?.map((a) => a.type), ['A', 'OPT']);
    assert.deepEqual(decode(encodeReply(dnsReply(srvQuery(false), Rcode.noError, answers, additionals), 512)).additionals?.map((a) => a.type), ['A']);
  });

  it('leaves out additional records that do not fit without TC, and keeps OPT (RFC 2181 9)', () => {
    const [answers, additionals] = srv(5);
    const bytes = encodeReply(dnsReply(srvQuery(true), Rcode.noError, answers, additionals), 512);
    const reply = decode(bytes);
    assert.ok(bytes.length <= 512, `${bytes.length} bytes`);
    assert.equal(reply.flag_tc, false);
    assert.equal(reply.answers?.length, 5);
    const kept = reply.additionals?.filter((a) => a.type === 'A').length ?? 0;
    assert.ok(kept > 0 && kept < 5, `${kept} A records`);
    assert.equal(reply.additionals?.at(-1)?.type, 'OPT');
  });

  it('sets TC when answers do not fit, keeping those that do', () => {
    const [answers, additionals] = srv(20);
    const bytes = encodeReply(dnsReply(srvQuery(false), Rcode.noError, answers, additionals), 512);
    const reply = decode(bytes);
    assert.ok(bytes.length <= 512, `${bytes.length} bytes`);
    assert.equal(reply.flag_tc, true);
    assert.ok((reply.answers?.length ?? 0) > 5, `${reply.answers?.length} answers`);
    assert.deepEqual(decode(encodeReply(dnsReply(srvQuery(false), Rcode.noError, answers, additionals), 65535)).answers?.length, 20);
  });
});
