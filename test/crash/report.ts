// The runs' reports as tables for people, and their verdicts: what made a run fail.
import type { CrashReport } from './harness.js';
import { OP_KINDS } from './model.js';
import type { SoakReport } from './soak.js';

function table(head: string[], rows: Array<Array<string | number>>): string {
  const cells = [head, ...rows.map((r) => r.map(String))];
  const widths = head.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  return cells.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')).join('\n');
}

export function operationsTable(r: CrashReport | SoakReport): string {
  const rows: Array<Array<string | number>> = OP_KINDS.map((k) => {
    const c = r.operations[k];
    return [k, c.tried, c.acknowledged, c.failed, c.cut, c.refused, c.hung];
  });
  const t = r.totals;
  rows.push(['all', t.tried, t.acknowledged, t.failed, t.cut, t.refused, t.hung]);
  return table(['operation', 'tried', 'acknowledged', 'failed', 'cut by a kill', 'refused', 'hung'], rows);
}

export function crashTable(r: CrashReport): string {
  const lines = [
    `seed ${r.seed}, ${r.clients} clients, ${r.kills} kills in ${r.seconds} s; restart median ${r.restartMs.median} ms, max ${r.restartMs.max} ms`,
    operationsTable(r),
    `${r.checks.total} checks, ${r.violations.length} violations, ${r.anomalies.length} anomalies, ${r.daemonErrors.length} daemon errors; strays removed: ${r.strays.containers} containers, ${r.strays.images} images`,
    table(['uncertain after', 'whole', 'absent', 'partial'], Object.entries(r.settled).map(([k, s]) => [k, s.whole, s.absent, s.partial])),
  ];
  for (const v of r.violations.slice(0, 30)) lines.push(`VIOLATION (${v.at}) ${v.what}: ${v.detail.slice(0, 400)}`);
  for (const a of r.anomalies.slice(0, 30)) lines.push(`ANOMALY (${a.at}) ${a.what}: ${a.detail.slice(0, 400)}`);
  for (const e of r.daemonErrors.slice(0, 10)) lines.push(`DAEMON ERROR ${e.slice(0, 600)}`);
  return lines.join('\n\n');
}

export function crashVerdict(r: CrashReport): string[] {
  const out: string[] = [];
  if (r.violations.length > 0) out.push(`${r.violations.length} invariant violations`);
  if (r.anomalies.length > 0) out.push(`${r.anomalies.length} anomalies`);
  if (r.daemonErrors.length > 0) out.push(`${r.daemonErrors.length} errors logged by the daemon`);
  return out;
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

export function soakTable(r: SoakReport): string {
  const b = r.idleBefore;
  const a = r.idleAfter;
  const tr = r.trend;
  const lines = [
    `seed ${r.seed}, ${r.clients} clients, ${r.minutes} minutes`,
    operationsTable(r),
    table(
      ['figure', 'idle before', 'first quarter', 'last quarter', 'idle after'],
      [
        ['RSS (MiB)', (b.rssKiB / 1024).toFixed(1), (tr.rssKiB.firstQuarter / 1024).toFixed(1), (tr.rssKiB.lastQuarter / 1024).toFixed(1), (a.rssKiB / 1024).toFixed(1)],
        ['open fds', b.fds, tr.fds.firstQuarter, tr.fds.lastQuarter, a.fds],
        ['data root (MiB)', mib(b.dataRootBytes), mib(tr.dataRootBytes.firstQuarter), mib(tr.dataRootBytes.lastQuarter), mib(a.dataRootBytes)],
        ['exec root (KiB)', (b.execRootBytes / 1024).toFixed(0), (tr.execRootBytes.firstQuarter / 1024).toFixed(0), (tr.execRootBytes.lastQuarter / 1024).toFixed(0), (a.execRootBytes / 1024).toFixed(0)],
        ['GET /containers/json p50 (ms)', b.list.p50Ms, tr.listP50Ms.firstQuarter, tr.listP50Ms.lastQuarter, a.list.p50Ms],
        ['GET /containers/json p95 (ms)', b.list.p95Ms, '', '', a.list.p95Ms],
        ['docker ps p50 (ms)', b.dockerPs.p50Ms, '', '', a.dockerPs.p50Ms],
      ],
    ),
    `event loop delay over the workload: p99 ${r.eventLoop.p99Ms} ms, worst ${r.samples.length > 0 ? 'sample window' : 'window'} p99 ${r.eventLoop.worstWindowP99Ms} ms, ${((r.eventLoop.over50msShare ?? 0) * 100).toFixed(3)}% of ${r.eventLoop.timers} timers over 50 ms late`,
    `GET /_ping from outside every 250 ms: p50 ${r.ping.p50Ms} ms, p99 ${r.ping.p99Ms} ms, max ${r.ping.maxMs} ms (${r.ping.count} pings)`,
    `${r.checks} checks, ${r.violations.length} violations, ${r.anomalies.length} anomalies, ${r.daemonErrors.length} daemon errors`,
  ];
  for (const v of r.violations.slice(0, 30)) lines.push(`VIOLATION (${v.at}) ${v.what}: ${v.detail.slice(0, 400)}`);
  for (const x of r.anomalies.slice(0, 30)) lines.push(`ANOMALY (${x.at}) ${x.what}: ${x.detail.slice(0, 400)}`);
  for (const e of r.daemonErrors.slice(0, 10)) lines.push(`DAEMON ERROR ${e.slice(0, 600)}`);
  return lines.join('\n\n');
}

/** What the soak holds the daemon to: flat memory, descriptors and disk, a responsive loop, an unchanged list. */
export function soakVerdict(r: SoakReport): string[] {
  const out: string[] = [];
  const b = r.idleBefore;
  const a = r.idleAfter;
  if (r.violations.length > 0) out.push(`${r.violations.length} violations of the final checks`);
  if (r.anomalies.length > 0) out.push(`${r.anomalies.length} anomalies`);
  if (r.daemonErrors.length > 0) out.push(`${r.daemonErrors.length} errors logged by the daemon`);
  if (r.eventLoop.p99Ms === null || r.eventLoop.p99Ms >= 50) out.push(`event loop p99 ${r.eventLoop.p99Ms} ms (under 50 wanted)`);
  if (a.fds > b.fds + 5) out.push(`descriptors: ${b.fds} idle before, ${a.fds} idle after`);
  // what V8 took for the workload's peaks is not all given back; a leak grows on with the run
  if (r.trend.rssKiB.lastQuarter > r.trend.rssKiB.firstQuarter * 1.25 + 20 * 1024) out.push(`memory grew: ${r.trend.rssKiB.firstQuarter} KiB in the first quarter, ${r.trend.rssKiB.lastQuarter} KiB in the last`);
  if (a.dataRootBytes > b.dataRootBytes + 2 ** 20) out.push(`the data root kept ${a.dataRootBytes - b.dataRootBytes} bytes after everything was removed`);
  if (a.execRootBytes > b.execRootBytes + 64 * 1024) out.push(`the exec root kept ${a.execRootBytes - b.execRootBytes} bytes after everything was removed`);
  if (a.list.p50Ms > b.list.p50Ms * 1.5 + 2) out.push(`GET /containers/json p50 ${b.list.p50Ms} ms before, ${a.list.p50Ms} ms after`);
  if (a.dockerPs.p50Ms > b.dockerPs.p50Ms * 1.5 + 20) out.push(`docker ps p50 ${b.dockerPs.p50Ms} ms before, ${a.dockerPs.p50Ms} ms after`);
  return out;
}
