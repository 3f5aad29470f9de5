// The replies the server gave for names of its own, remembered by what they answered: the query's
// bytes after its ID, the querier's address and the transport. The same bytes from the same querier
// get the same reply but for the ID, which is the query's, until the records change (their
// version moves on), so a repeated query is answered without decoding or encoding anything: that
// is most of a container's queries (its resolver asks the same few names again and again). Only
// answers that stay the same are kept (none that takes turns among several addresses).
import { HEADER_BYTES } from './dns-header.js';
import type { DnsRecords } from './dns-records.js';
import type { Transport } from './dns-reply.js';

/** Past this many, the cache starts again empty: a querier spelling endless names costs no more than this. */
const MAX_ENTRIES = 4096;

export class ReplyCache {
  private readonly replies = new Map<string, Buffer>();
  private version: number;

  constructor(private readonly records: Pick<DnsRecords, 'version'>) {
    this.version = records.version;
  }

  /** A copy of the reply remembered for this query, with its ID; undefined when there is none. */
  get(message: Buffer, source: string, transport: Transport): Buffer | undefined {
    if (this.replies.size === 0 || message.length < HEADER_BYTES) return undefined;
    if (this.records.version !== this.version) {
      this.replies.clear();
      return undefined;
    }
    const kept = this.replies.get(keyOf(message, source, transport));
    if (kept === undefined) return undefined;
    const reply = Buffer.allocUnsafe(kept.length);
    kept.copy(reply);
    // the ID is the header's first two bytes (RFC 1035 4.1.1)
    message.copy(reply, 0, 0, 2);
    return reply;
  }

  /** Remembers the reply to a query screened and answered from the records as they are now. */
  set(message: Buffer, source: string, transport: Transport, reply: Buffer): void {
    if (this.records.version !== this.version) {
      this.replies.clear();
      this.version = this.records.version;
    }
    if (this.replies.size >= MAX_ENTRIES) this.replies.clear();
    this.replies.set(keyOf(message, source, transport), reply);
  }
}

/** Everything a reply depends on: the query but its ID (flags, question, EDNS), who asked, and how. */
function keyOf(message: Buffer, source: string, transport: Transport): string {
  return `${transport} ${source} ${message.toString('latin1', 2)}`;
}
