// Container-to-container throughput on a user-defined network: on each engine, on a bridge
// network made for the figure, one busybox container listens (`nc -l -p 5001 > /dev/null`) and
// another sends it 1 GiB of zeros by its container name (`dd if=/dev/zero bs=1M count=1024 | nc
// NAME 5001`), timed by busybox's `time` around the pipeline (10 ms steps), so that the containers'
// start-up stays out of it. busybox's nc here is the small one, with no -q: it half-closes the
// connection when either its input or the connection ends, and exits when both have. So the
// listener's input is a pipe that never ends (`sleep | nc -l`), else it would half-close at once
// and the sender would stop sending; the sender exits once the listener has read everything and
// half-closed in turn, and the listener is removed by force. Each round takes a new pair.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { BUSYBOX, containerEngines, type ContainerEngine } from '../container-engines.js';
import type { EngineApi } from '../engine-api.js';
import { alternateRounds, comparedRow } from '../engine-rounds.js';
import type { BenchContext, Figure, Row } from '../figure.js';

const PORT = 5001;
const MIB = 1024;
const WARM_UPS = 0;
const ROUNDS = 3;
const LISTEN_TIMEOUT_MS = 10_000;

export const networkThroughput: Figure = {
  name: 'container-to-container throughput',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const setup = await containerEngines(ctx, 'throughput');
    const networks = new Map<ContainerEngine, string>();
    let round = 0;
    try {
      for (const engine of setup.engines) networks.set(engine, await setup.createNetwork(engine, 'net'));
      const samples = await alternateRounds(ctx, setup.engines, { warmUps: WARM_UPS, rounds: ROUNDS, unit: 'MB/s' }, async (engine) => {
        const { api } = engine;
        const HostConfig = { NetworkMode: networks.get(engine) };
        const receiverName = `${setup.namePrefix}recv-${++round}`;
        const receiver = await api.create({ Image: BUSYBOX, Cmd: ['sh', '-c', `sleep 86400 | nc -l -p ${PORT} > /dev/null`], HostConfig }, receiverName);
        await api.start(receiver);
        await waitListening(api, receiver, PORT);
        const send = `time sh -c 'dd if=/dev/zero bs=1M count=${MIB} | nc ${receiverName} ${PORT}'`;
        const sender = await api.create({ Image: BUSYBOX, Cmd: ['sh', '-c', send], HostConfig }, `${setup.namePrefix}send-${round}`);
        await api.start(sender);
        const sent = await api.wait(sender);
        const log = await api.stderr(sender);
        if (sent !== 0) throw new Error(`on ${engine.name} the sender exited with ${sent}: ${log.trim()}`);
        await api.remove(sender);
        await api.remove(receiver, true);
        return rate(log);
      });
      return [comparedRow(`${MIB} MiB between two containers on a user network (busybox dd | nc), by name`, 'MB/s', samples, { kind: 'atLeastReference', ratio: 0.9 })];
    } finally {
      await setup.close();
    }
  },
};

/** Waits until a socket in the container's network namespace listens on the TCP port (/proc/PID/net/tcp or tcp6, state 0A: nc listens on IPv6's any address where it can). */
async function waitListening(api: EngineApi, id: string, port: number): Promise<void> {
  const pid = await api.pid(id);
  const local = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const until = Date.now() + LISTEN_TIMEOUT_MS;
  for (;;) {
    const sockets = ['tcp', 'tcp6'].flatMap((file) => readFileSync(`/proc/${pid}/net/${file}`, 'utf8').split('\n').slice(1));
    if (sockets.some((line) => listensOn(line, local))) return;
    if (Date.now() > until) throw new Error(`container ${id} on ${api.socket} is not listening on ${port} after ${LISTEN_TIMEOUT_MS} ms`);
    await sleep(10);
  }
}

function listensOn(line: string, local: string): boolean {
  const fields = line.trim().split(/\s+/);
  return fields[1]?.endsWith(local) === true && fields[3] === '0A';
}

/** MB/s from the sender's log: dd's count (`1024+0 records out`), then busybox time's `real\t0m 18.17s`. */
function rate(log: string): number {
  if (!log.includes(`${MIB}+0 records out`)) throw new Error(`dd did not copy ${MIB} MiB: ${log.trim()}`);
  const m = /real\s+(?:(\d+)h\s*)?(?:(\d+)m\s*)?([\d.]+)s/.exec(log);
  if (!m) throw new Error(`no time in the sender's log: ${log.trim()}`);
  const seconds = Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3]);
  return (MIB * 1024 * 1024) / seconds / 1e6;
}
