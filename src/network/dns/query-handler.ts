// One query in, one reply out (or none), whatever the transport: screened, answered from the
// registry when the name is ours, else forwarded; SERVFAIL when no upstream answers, REFUSED while
// too many forwarded queries are in flight. Docker answers SERVFAIL too when it has no upstreams.
import type { Logger } from 'pino';
import { Rcode } from './dns-header.js';
import type { DnsRecords } from './dns-records.js';
import { dnsReply, encodeReply, replyLimit, type Transport } from './dns-reply.js';
import { localAnswer } from './local-answer.js';
import { screenQuery } from './query-screen.js';
import type { UpstreamForwarder } from './upstream-forwarder.js';

export class QueryHandler {
  constructor(
    private readonly records: DnsRecords,
    private readonly forwarder: UpstreamForwarder,
    private readonly log?: Logger,
  ) {}

  async handle(message: Buffer, source: string, transport: Transport): Promise<Buffer | undefined> {
    try {
      const screened = screenQuery(message);
      if (screened === undefined || 'refusal' in screened) return screened?.refusal;
      const { query } = screened;
      const limit = replyLimit(query, transport);
      const local = localAnswer(query, source, this.records);
      if (local) return encodeReply(local, limit);
      if (this.forwarder.busy) return encodeReply(dnsReply(query, Rcode.refused), limit);
      return (await this.forwarder.forward(message, source, transport)) ?? encodeReply(dnsReply(query, Rcode.servFail), limit);
    } catch (err) {
      // a bug, not a bad query (those are screened): the query goes unanswered and the server serves on
      this.log?.error({ err, source, transport }, 'dns: query failed');
      return undefined;
    }
  }
}
