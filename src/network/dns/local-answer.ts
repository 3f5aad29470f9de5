// The answers for names the registry holds, with Docker's TTL of 600 s; undefined for a name that
// is not ours, which then goes upstream. A name of ours has no other records, so a question of
// another type (AAAA for an IPv4-only container, MX, TXT) gets an empty NOERROR: NXDOMAIN would deny
// the name for every type, and forwarding would ask the host's resolvers about a container. (Docker
// gives the empty NOERROR for A, AAAA and MX, and forwards other types of its own names.) An SRV
// name of a swarm service is answered with each target's A record beside it (in the additional
// section, as Docker's handleSRVQuery puts it), or NXDOMAIN when it names no port or task of ours.
import type { Answer, DecodedPacket, Packet } from 'dns-packet';
import { Rcode } from './dns-header.js';
import type { DnsRecords, DnsServiceTarget } from './dns-records.js';
import { dnsReply } from './dns-reply.js';
import { ptrAddress } from './ptr-address.js';

/** libnetwork's respTTL. */
const TTL_SECONDS = 600;

/** `query` has passed screenQuery: it holds one question. */
export function localAnswer(query: DecodedPacket, source: string, records: DnsRecords): Packet | undefined {
  const question = query.questions![0];
  if (question.class !== 'IN') return undefined;
  // the answers keep the question's spelling: some resolvers vary the case and check it comes back
  const { name, type } = question;
  const key = name.toLowerCase();
  if (type === 'PTR') {
    const address = ptrAddress(key);
    const names = address === undefined ? undefined : records.reverse(source, address);
    if (names) return dnsReply(query, Rcode.noError, names.map((data): Answer => ({ type: 'PTR', name, ttl: TTL_SECONDS, data })));
  }
  if (type === 'SRV') {
    const targets = records.service(source, key);
    if (targets) return srvReply(query, name, targets);
  }
  const found = records.lookup(source, key);
  if (!found) return undefined;
  if (type !== 'A' && type !== 'AAAA') return dnsReply(query, Rcode.noError);
  const addresses = type === 'A' ? found.a : found.aaaa;
  return dnsReply(query, Rcode.noError, addresses.map((data): Answer => ({ type, name, ttl: TTL_SECONDS, data })));
}

function srvReply(query: DecodedPacket, name: string, targets: readonly DnsServiceTarget[]): Packet {
  if (targets.length === 0) return dnsReply(query, Rcode.nxDomain);
  const answers = targets.map(({ target, port }): Answer => ({ type: 'SRV', name, ttl: TTL_SECONDS, data: { priority: 0, weight: 0, port, target } }));
  // one A record per target, though a task may be the target of two ports
  const hosts = new Map(targets.map((t) => [t.target, t.ipv4]));
  const additionals = [...hosts].map(([target, data]): Answer => ({ type: 'A', name: target, ttl: TTL_SECONDS, data }));
  return dnsReply(query, Rcode.noError, answers, additionals);
}
