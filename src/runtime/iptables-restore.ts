// Whole rule sets in one process each way: iptables-save reads every table of a namespace, and
// iptables-restore --noflush applies a set of changes as one transaction (nft commits the batch at
// once), so that rules for 100 backends cost one process, not 100, and no packet sees half a change.
// A failed restore changes nothing; its error is a CommandError in iptables' words.
import { runCommand } from './child-process.js';
import { inNetns } from './netns.js';

/** how long iptables waits for the xtables lock (a legacy backend's) before it fails */
const LOCK_WAIT_SECONDS = '10';
const IPTABLES_TIMEOUT_MS = 20_000;

/** The namespace's tables as iptables-save prints them (berthd's own namespace without `netns`). */
export async function iptablesSave(netns: string | undefined): Promise<string> {
  const [file, args] = inNetns(netns, 'iptables-save', []);
  return (await runCommand(file, args, { timeoutMs: IPTABLES_TIMEOUT_MS })).stdout.toString('utf8');
}

/** Applies `text` (iptables-restore's input) to the namespace, leaving every rule it does not name. */
export async function iptablesRestore(netns: string | undefined, text: string): Promise<void> {
  const [file, args] = inNetns(netns, 'iptables-restore', ['-w', LOCK_WAIT_SECONDS, '--noflush']);
  await runCommand(file, args, { timeoutMs: IPTABLES_TIMEOUT_MS, input: text });
}
