// Which messages are queries to answer, decided as miekg/dns (the server library under Docker's
// resolver) decides with its default accept function: a message too short for a header, or a
// response, gets nothing (any reply to garbage can be used to amplify); an opcode other than QUERY
// gets NOTIMP; section counts no query has, or a body that does not decode, get FORMERR. Both
// refusals are the header alone, never larger than what came in.
import dnsPacket, { type DecodedPacket } from 'dns-packet';
import { Flag, Rcode, readHeader, type DnsHeader } from './dns-header.js';

export type Screened = { query: DecodedPacket } | { refusal: Buffer } | undefined;

export function screenQuery(message: Buffer): Screened {
  const header = readHeader(message);
  if (!header || (header.flags & Flag.response) !== 0) return undefined;
  if ((header.flags & Flag.opcode) !== 0) return { refusal: refusal(header, Rcode.notImp) };
  // one question; at most one answer or authority record (NOTIFY, IXFR) and two additionals (OPT, TSIG)
  if (header.questions !== 1 || header.answers > 1 || header.authorities > 1 || header.additionals > 2) {
    return { refusal: refusal(header, Rcode.formErr) };
  }
  try {
    return { query: dnsPacket.decode(message) };
  } catch {
    return { refusal: refusal(header, Rcode.formErr) };
  }
}

function refusal(header: DnsHeader, rcode: Rcode): Buffer {
  // the opcode stays for NOTIMP, as miekg/dns keeps it; FORMERR says QUERY
  const opcode = rcode === Rcode.notImp ? header.flags & Flag.opcode : 0;
  const flags = opcode | (header.flags & (Flag.recursionDesired | Flag.checkingDisabled)) | rcode;
  return dnsPacket.encode({ type: 'response', id: header.id, flags });
}
