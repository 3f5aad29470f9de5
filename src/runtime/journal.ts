// The host's systemd journal, for the journald log driver (container/logs/journald-*.ts): its
// native socket, a unix datagram socket node:dgram cannot open, reached through socat
// (datagram-relay.ts) as go-systemd's journal.Send reaches it; journalctl's export of the entries
// `docker logs` reads (what dockerd reads through sd-journal); and `journalctl --sync`, which
// returns once journald has written what it had received (its Synchronize call runs after the
// queued messages are processed).
import { Readable } from 'node:stream';
import { pipeThroughCommand, runCommand, type FilterOptions } from './child-process.js';
import { openDatagramRelay, type DatagramRelay } from './datagram-relay.js';

/** go-systemd's journalSocket */
export const JOURNAL_SOCKET = '/run/systemd/journal/socket';

/** Connects to the journal's native socket; rejects when nothing listens there (no journald on this host). */
export function openJournalSocket(): Promise<DatagramRelay> {
  return openDatagramRelay(JOURNAL_SOCKET);
}

/** Waits until journald has written every message it received before the call. */
export async function syncJournal(timeoutMs: number): Promise<void> {
  await runCommand('journalctl', ['--sync'], { timeoutMs });
}

/**
 * `journalctl -o export <args>`'s output as a stream: it ends when journalctl does (and fails with
 * its error when it fails); destroying the stream stops journalctl (the way out of --follow).
 */
export function journalExport(args: readonly string[], opts: FilterOptions = {}): Readable {
  return pipeThroughCommand(Readable.from([]), 'journalctl', ['--output=export', '--no-pager', ...args], opts);
}
