// The reference engine as a one-node swarm for the swarm figures, left as it was found. dockerd's
// `swarm init` needs an address to advertise, and its namespace has only loopback and docker0: the
// figure adds one on a veth pair of its own inside that namespace (bench/netns.ts addHostAddress),
// unless the address is there already. A reference that is in a swarm already is someone else's:
// the figures leave it alone and say so. At the end, also when Ctrl-C stops the run in the middle
// of a round: the figure's docker commands still running are waited for (an init the daemon has
// begun completes even when its client goes away), then `swarm leave --force` until the engine
// stays inactive; docker_gwbridge is removed if the figure's init made it (dockerd makes it at
// init and keeps it after leaving), the address if the figure added it.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ContainerEngine } from './container-engines.js';
import { docker, type CliRun } from './docker-cli.js';
import { EngineApi } from './engine-api.js';
import type { BenchContext } from './figure.js';
import { addHostAddress, execIn } from './netns.js';

/** private, and outside Docker's default address pools (172.17–31/16, 192.168/16) and the ingress network's 10.0.0.0/24 */
export const REFERENCE_ADVERTISE_ADDR = '10.231.0.1';
const LINK = 'bench-swarm';
const GWBRIDGE = 'docker_gwbridge';
const GWBRIDGE_REMOVE_TRIES = 10;
const GWBRIDGE_RETRY_MS = 200;
/** inactive twice this far apart: no init or join of the figure's is still on its way */
const SETTLE_MS = 500;
const LEAVE_TRIES = 20;

export interface ReferenceSwarmHost {
  engine: ContainerEngine;
  advertiseAddr: string;
  /** The docker CLI against the reference, timed; close() waits for the commands still running. */
  docker(args: string[]): Promise<CliRun>;
  /** Leaves the swarm if in one, removes what the figure added; also run by the session if the figure stops first. */
  close(): Promise<void>;
}

/** The reference ready for `swarm init --advertise-addr`, or why the figure goes without it (null when there is no reference). */
export async function referenceSwarmHost(ctx: BenchContext, configDir: string): Promise<ReferenceSwarmHost | { skipped: string } | null> {
  if (!ctx.reference) return null;
  if (ctx.reference.pid === null) return { skipped: `the reference's namespace is unknown (${ctx.reference.pidProblem}): berth only` };
  const netns = `/proc/${ctx.reference.pid}/ns/net`;
  const api = new EngineApi(ctx.reference.socket);
  const engine: ContainerEngine = { name: 'reference', socket: ctx.reference.socket, api, netns, assertRunning: () => undefined };
  const state = await localNodeState(api);
  if (state !== 'inactive') {
    api.close();
    return { skipped: `the reference is in a swarm already (LocalNodeState ${state}): left alone, berth only` };
  }
  const hadGwbridge = (await api.call('GET', `/networks/${GWBRIDGE}`, [200, 404])).status === 200;
  const hasAddress = execIn(netns, 'ip', ['-o', 'addr', 'show']).includes(` ${REFERENCE_ADVERTISE_ADDR}/`);
  let removeAddress: (() => void) | undefined;
  const running = new Set<Promise<CliRun>>();
  const run = (args: string[]) => {
    const command = docker(ctx.reference?.socket as string, configDir, args);
    running.add(command);
    void command.finally(() => running.delete(command)).catch(() => undefined);
    return command;
  };
  let closing: Promise<void> | undefined;
  const close = async () => {
    try {
      await Promise.allSettled([...running]);
      await leaveUntilInactive(api);
      if (!hadGwbridge) await removeGwbridge(api);
    } finally {
      removeAddress?.();
      api.close();
    }
  };
  const takeBack = ctx.atClose(() => (closing ??= close()));
  try {
    if (!hasAddress) removeAddress = addHostAddress(netns, LINK, REFERENCE_ADVERTISE_ADDR);
  } catch (err) {
    takeBack();
    await (closing ??= close());
    throw err;
  }
  return {
    engine,
    advertiseAddr: REFERENCE_ADVERTISE_ADDR,
    docker: run,
    close() {
      takeBack();
      return (closing ??= close());
    },
  };
}

async function localNodeState(api: EngineApi): Promise<string> {
  const info = JSON.parse((await api.call('GET', '/info', [200])).text) as { Swarm: { LocalNodeState: string } };
  return info.Swarm.LocalNodeState;
}

/** `swarm leave --force` until the engine says inactive twice, SETTLE_MS apart. */
async function leaveUntilInactive(api: EngineApi): Promise<void> {
  let quiet = 0;
  for (let tries = 1; quiet < 2; tries++) {
    const state = await localNodeState(api);
    if (state === 'inactive') {
      if (++quiet < 2) await sleep(SETTLE_MS);
      continue;
    }
    if (tries > LEAVE_TRIES) throw new Error(`the reference is still in a swarm (LocalNodeState ${state}) after ${LEAVE_TRIES} leaves`);
    quiet = 0;
    // 503: it left meanwhile
    await api.call('POST', '/swarm/leave?force=1', [200, 503]);
  }
}

/** Removes docker_gwbridge if it is there; right after a leave, the ingress sandbox may still hold an endpoint on it for a moment. */
async function removeGwbridge(api: EngineApi): Promise<void> {
  for (let tries = 1; ; tries++) {
    const answer = await api.call('DELETE', `/networks/${GWBRIDGE}`, [204, 404, 403, 409, 500]);
    if (answer.status === 204 || answer.status === 404) return;
    if (tries === GWBRIDGE_REMOVE_TRIES) throw new Error(`${GWBRIDGE} on the reference was not removed: ${answer.status} ${answer.text.trim()}`);
    await sleep(GWBRIDGE_RETRY_MS);
  }
}
