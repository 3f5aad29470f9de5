// The replies the resolver writes itself, flagged as Docker's are (miekg's SetReply, then RA): the
// query's ID, opcode, RD and CD; recursion available; not authoritative; the first question
// echoed. Docker drops the query's EDNS OPT record from its own answers; berth puts its own in, as
// RFC 6891 (7) asks of a server that understands EDNS, so that a client goes on using EDNS with it
// (systemd-resolved takes a server whose answers lack OPT for one without EDNS, and steps down).
import dnsPacket, { type Answer, type DecodedPacket, type OptAnswer, type Packet } from 'dns-packet';
import { Flag, HEADER_BYTES, type Rcode } from './dns-header.js';

export type Transport = 'udp' | 'tcp';

/** What a UDP reply may hold without EDNS (RFC 1035 4.2.1). */
const PLAIN_UDP_BYTES = 512;
const TCP_BYTES = 65535;
/** The UDP size berth advertises in its OPT record: DNS Flag Day 2020's. */
const EDNS_UDP_BYTES = 1232;

const OPT: OptAnswer = { type: 'OPT', name: '.', udpPayloadSize: EDNS_UDP_BYTES, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] };

export function dnsReply(query: DecodedPacket, rcode: Rcode, answers: Answer[] = []): Packet {
  const flags = ((query.flags ?? 0) & (Flag.opcode | Flag.recursionDesired | Flag.checkingDisabled)) | Flag.recursionAvailable | rcode;
  return {
    type: 'response',
    id: query.id,
    flags,
    questions: query.questions?.slice(0, 1),
    answers,
    additionals: ednsOf(query) ? [OPT] : [],
  };
}

/** The most a reply to `query` may hold: 512 bytes over UDP, or the client's EDNS size when larger; a TCP message's limit. */
export function replyLimit(query: DecodedPacket, transport: Transport): number {
  if (transport === 'tcp') return TCP_BYTES;
  return Math.max(PLAIN_UDP_BYTES, ednsOf(query)?.udpPayloadSize ?? 0);
}

/** The reply encoded within `maxBytes`: answers that do not fit are left out and the TC bit tells the client to ask over TCP. */
export function encodeReply(reply: Packet, maxBytes: number): Buffer {
  const whole = dnsPacket.encode(reply);
  if (whole.length <= maxBytes) return whole;
  const answers = reply.answers ?? [];
  let length = dnsPacket.encodingLength({ ...reply, answers: [] });
  let kept = 0;
  for (const answer of answers) {
    length += dnsPacket.encodingLength({ answers: [answer] }) - HEADER_BYTES;
    if (length > maxBytes) break;
    kept++;
  }
  return dnsPacket.encode({ ...reply, flags: (reply.flags ?? 0) | Flag.truncated, answers: answers.slice(0, kept) });
}

function ednsOf(query: DecodedPacket): OptAnswer | undefined {
  return query.additionals?.find((a): a is OptAnswer => a.type === 'OPT');
}
