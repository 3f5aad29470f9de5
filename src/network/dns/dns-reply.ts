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

/** `additionals` are records that help with the answers (an SRV target's A record); the OPT record is added here. */
export function dnsReply(query: DecodedPacket, rcode: Rcode, answers: Answer[] = [], additionals: Answer[] = []): Packet {
  const flags = ((query.flags ?? 0) & (Flag.opcode | Flag.recursionDesired | Flag.checkingDisabled)) | Flag.recursionAvailable | rcode;
  return {
    type: 'response',
    id: query.id,
    flags,
    questions: query.questions?.slice(0, 1),
    answers,
    additionals: ednsOf(query) ? [...additionals, OPT] : additionals,
  };
}

/** The most a reply to `query` may hold: 512 bytes over UDP, or the client's EDNS size when larger; a TCP message's limit. */
export function replyLimit(query: DecodedPacket, transport: Transport): number {
  if (transport === 'tcp') return TCP_BYTES;
  return Math.max(PLAIN_UDP_BYTES, ednsOf(query)?.udpPayloadSize ?? 0);
}

/**
 * The reply encoded within `maxBytes`: the answers that fit, then the additional records that fit
 * (the OPT record always stays). The TC bit, telling the client to ask over TCP, is set when an
 * answer is left out; additional records alone may go without it (RFC 2181 9).
 */
export function encodeReply(reply: Packet, maxBytes: number): Buffer {
  const whole = dnsPacket.encode(reply);
  if (whole.length <= maxBytes) return whole;
  const answers = reply.answers ?? [];
  const opt = (reply.additionals ?? []).filter((a) => a.type === 'OPT');
  const helpers = (reply.additionals ?? []).filter((a) => a.type !== 'OPT');
  let room = maxBytes - dnsPacket.encodingLength({ ...reply, answers: [], additionals: opt });
  const fitting = (records: Answer[]): Answer[] => {
    let kept = 0;
    for (const record of records) {
      const size = dnsPacket.encodingLength({ answers: [record] }) - HEADER_BYTES;
      if (size > room) break;
      room -= size;
      kept++;
    }
    return records.slice(0, kept);
  };
  const keptAnswers = fitting(answers);
  const flags = (reply.flags ?? 0) | (keptAnswers.length < answers.length ? Flag.truncated : 0);
  return dnsPacket.encode({ ...reply, flags, answers: keptAnswers, additionals: [...fitting(helpers), ...opt] });
}

function ednsOf(query: DecodedPacket): OptAnswer | undefined {
  return query.additionals?.find((a): a is OptAnswer => a.type === 'OPT');
}
