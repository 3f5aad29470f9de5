// One query in, one reply out (or none), whatever the transport: screened, answered from the
// registry when the name is ours, else forwarded; SERVFAIL when no upstream answers, REFUSED while
// too many forwarded queries are in flight. Docker answers SERVFAIL too when it has no upstreams.
// An answer of ours is remembered (reply-cache.ts), and the same query again gets it at once.
import type { Logger } from 'pino';
import { Rcode } from './dns-header.js';
import type { DnsRecords } from './dns-records.js';
import { dnsReply, encodeReply, replyLimit, type Transport } from './dns-reply.js';
import { localAnswer } from './local-answer.js';
import { screenQuery } from './query-screen.js';
import { ReplyCache } from './reply-cache.js';
import type { UpstreamForwarder } from './upstream-forwarder.js';

export class QueryHandler {
  private readonly cache: ReplyCache;

  constructor(
    private readonly records: DnsRecords,
    private readonly forwarder: UpstreamForwarder,
    private readonly log?: Logger,
  ) {
    this.cache = new ReplyCache(records);
  }

  /** The reply at once when this query was answered before from the records as they are; undefined otherwise (then call handle). */
  cached(message: Buffer, source: string, transport: Transport): Buffer | undefined {
    return this.cache.get(message, source, transport);
  }

  async handle(message: Buffer, source: string, transport: Transport): Promise<Buffer | undefined> {
    try {
      const cached = this.cache.get(message, source, transport);
      if (cached) return cached;
      const screened = screenQuery(message);
      if (screened === undefined || 'refusal' in screened) return screened?.refusal;
      const { query } = screened;
      const limit = replyLimit(query, transport);
      const local = localAnswer(query, source, this.records);
      if (local) {
        const reply = encodeReply(local, limit);
        // several records take turns (dns-registry.ts): that answer changes from one query to the next
        if ((local.answers?.length ?? 0) <= 1) this.cache.set(message, source, transport, reply);
        return reply;
      }
      if (this.forwarder.busy) return encodeReply(dnsReply(query, Rcode.refused), limit);
      return (await this.forwarder.forward(message, source, transport)) ?? encodeReply(dnsReply(query, Rcode.servFail), limit);
    } catch (err) {
      // a bug, not a bad query (those are screened): the query goes unanswered and the server serves on
      this.log?.error({ err, source, transport }, 'dns: query failed');
      return undefined;
    }
  }
}
