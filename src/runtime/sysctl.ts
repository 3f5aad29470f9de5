// Kernel settings of one network namespace: /proc/sys/net is the namespace's of the process that
// opens it, so sysctl runs inside through nsenter (berthd's own namespace without `netns`).
import { runCommand } from './child-process.js';
import { inNetns } from './netns.js';

const SYSCTL_TIMEOUT_MS = 10_000;

/** Sets every `key` (net.ipv4.ip_forward) to its value, in one process. */
export async function setNetSysctls(netns: string | undefined, values: Readonly<Record<string, string>>): Promise<void> {
  const assignments = Object.entries(values).map(([key, value]) => `${key}=${value}`);
  if (assignments.length === 0) return;
  const [file, args] = inNetns(netns, 'sysctl', ['-q', '-w', ...assignments]);
  await runCommand(file, args, { timeoutMs: SYSCTL_TIMEOUT_MS });
}
