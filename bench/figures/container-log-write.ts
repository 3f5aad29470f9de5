// A container writing 1 GiB of short lines to a log that rotates (max-size=10m, max-file=3), on each
// engine in turn: the write throughput, the most disk its log files held at once (sampled every few
// milliseconds, each file counted once however it is renamed), and the daemon's CPU per MiB. On both
// the daemon writes the JSON lines (on berth, conmon hands the output over through a pipe).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { BUSYBOX, containerEngines, type ContainerEngine } from '../container-engines.js';
import { docker } from '../docker-cli.js';
import { comparedRow } from '../engine-rounds.js';
import type { BenchContext, Figure, Row } from '../figure.js';

const BYTES = 1024 * 1024 * 1024;
const MIB = 1024 * 1024;
const SAMPLE_MS = 5;
/** the writer waits this long before it writes, so the sampling is under way */
const START_DELAY_S = 1;

export const containerLogWrite: Figure = {
  name: 'container log writing',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const setup = await containerEngines(ctx, 'logwrite');
    const configDir = ctx.makeDir('docker-config');
    const daemonPid: Record<string, number | null> = { berth: setup.berthd.pid, reference: ctx.reference?.pid ?? null };
    const rates: Record<string, number[]> = { berth: [], reference: [] };
    const peaks: Record<string, number[]> = { berth: [], reference: [] };
    const cpu: Record<string, number[]> = { berth: [], reference: [] };
    try {
      for (const engine of setup.engines) {
        ctx.progress(`writing 1 GiB of log lines on ${engine.name}`);
        const r = await writeLog(engine, configDir, `${setup.namePrefix}writer`, daemonPid[engine.name]);
        rates[engine.name].push(r.mbPerSecond);
        peaks[engine.name].push(r.peakMiB);
        if (r.cpuMsPerMiB !== undefined) cpu[engine.name].push(r.cpuMsPerMiB);
      }
      return [
        comparedRow('log write throughput, 1 GiB of short lines with max-size=10m max-file=3', 'MB/s', { berth: rates.berth, reference: rates.reference }, { kind: 'atLeastReference' }),
        comparedRow('the most disk its log files held at once', 'MiB', { berth: peaks.berth, reference: peaks.reference }, { kind: 'below', limit: 31 }),
        comparedRow('daemon CPU per MiB logged', 'ms', { berth: cpu.berth, reference: cpu.reference }),
      ];
    } finally {
      await setup.close();
    }
  },
};

async function writeLog(engine: ContainerEngine, configDir: string, name: string, pid: number | null): Promise<{ mbPerSecond: number; peakMiB: number; cpuMsPerMiB?: number }> {
  const write = `sleep ${START_DELAY_S}; yes "a short line of log output, some fifty bytes long" | head -c ${BYTES}`;
  await docker(engine.socket, configDir, ['run', '-d', '--name', name, '--log-opt', 'max-size=10m', '--log-opt', 'max-file=3', BUSYBOX, 'sh', '-c', write]);
  const inspect = await docker(engine.socket, configDir, ['inspect', '-f', '{{.LogPath}}', name]);
  const logDir = path.dirname(inspect.stdout.trim());
  const cpuBefore = pid === null ? undefined : cpuMs(pid);
  const started = performance.now();
  let peak = 0;
  let done = false;
  const waited = docker(engine.socket, configDir, ['wait', name]).finally(() => (done = true));
  while (!done) {
    peak = Math.max(peak, logBytes(logDir));
    await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
  }
  await waited;
  const seconds = (performance.now() - started) / 1000 - START_DELAY_S;
  const cpuAfter = pid === null ? undefined : cpuMs(pid);
  await docker(engine.socket, configDir, ['rm', name]);
  return {
    mbPerSecond: BYTES / 1e6 / seconds,
    peakMiB: peak / MIB,
    ...(cpuBefore !== undefined && cpuAfter !== undefined ? { cpuMsPerMiB: (cpuAfter - cpuBefore) / (BYTES / MIB) } : {}),
  };
}

/** The log files' bytes now, each file once (a rotation renames them while they are counted). */
function logBytes(dir: string): number {
  const seen = new Set<number>();
  let sum = 0;
  for (const file of readdirSync(dir)) {
    if (!file.includes('log')) continue;
    try {
      const st = statSync(path.join(dir, file));
      if (!st.isFile() || seen.has(st.ino)) continue;
      seen.add(st.ino);
      sum += st.size;
    } catch {
      // renamed or removed between the listing and the stat
    }
  }
  return sum;
}

/** A process's user and system CPU time so far, in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
