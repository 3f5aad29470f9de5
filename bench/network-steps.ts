// The networking steps of one container's run on berth, each timed on its own: run by the
// container-run figure with node in a scratch network namespace (nodeIn), so that the CNI plugins
// run there as berthd runs them in its own, without an nsenter per call. The steps are berthd's own
// code (src/runtime/netns.ts, src/runtime/cni.ts) given the lists berthd builds
// (src/network/cni-lists.ts endpointConfList) for an endpoint on the network record it is given
// (the default bridge of the figure's berthd): the namespace made, the CNI ADD, the DEL, the
// namespace removed; once with no published port and once with one (portmap in the list). The
// bridge network's iptables chains, made once per daemon, are not a run's cost and are left out.
// Prints each step's durations, in ms, as JSON.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { endpointConfList, type PortMapping } from '../src/network/cni-lists.js';
import { buildEndpoint } from '../src/network/endpoint-allocation.js';
import type { NetworkRecord } from '../src/network/network-record.js';
import { Cni } from '../src/runtime/cni.js';
import { createNetns, prepareNetnsDir, removeNetns } from '../src/runtime/netns.js';
import { readInput } from './netns.js';

export interface NetworkStepsInput {
  network: NetworkRecord;
  /** where the containers' namespace files go */
  dir: string;
  rounds: number;
  /** the published port's mapping for the rounds with one */
  port: PortMapping;
}

export interface NetworkStepsResult {
  createNetnsMs: number[];
  addMs: number[];
  delMs: number[];
  removeNetnsMs: number[];
  addWithPortMs: number[];
  delWithPortMs: number[];
}

async function main(): Promise<void> {
  const input = await readInput<NetworkStepsInput>();
  const folder = await prepareNetnsDir(input.dir);
  const cni = new Cni();
  const result: NetworkStepsResult = { createNetnsMs: [], addMs: [], delMs: [], removeNetnsMs: [], addWithPortMs: [], delWithPortMs: [] };
  try {
    for (let round = 0; round < input.rounds; round++) {
      for (const ports of [[], [input.port]]) {
        const id = randomBytes(32).toString('hex');
        // the address is the network's first free one: each round's container is removed before the next
        const endpoint = buildEndpoint(input.network, { id, name: `steps-${round}` }, { aliases: [], links: [] }, { usedIn: () => new Set(), endpointsOf: () => [] });
        const list = endpointConfList(input.network, endpoint, { ports, defaultRoute: true });
        const attachment = { containerId: id, netns: path.join(input.dir, id), ifName: endpoint.ifName, capabilityArgs: ports.length > 0 ? { portMappings: ports } : {} };
        const marks = [performance.now()];
        try {
          await createNetns(attachment.netns);
          marks.push(performance.now());
          const added = await cni.add(list, attachment);
          marks.push(performance.now());
          await cni.del(list, attachment, added);
          marks.push(performance.now());
        } finally {
          await removeNetns(attachment.netns);
        }
        marks.push(performance.now());
        const [createMs, addMs, delMs, removeMs] = marks.slice(1).map((m, i) => m - marks[i]);
        if (ports.length === 0) {
          result.createNetnsMs.push(createMs);
          result.addMs.push(addMs);
          result.delMs.push(delMs);
          result.removeNetnsMs.push(removeMs);
        } else {
          result.addWithPortMs.push(addMs);
          result.delWithPortMs.push(delMs);
        }
      }
    }
  } finally {
    await folder.release();
  }
  process.stdout.write(JSON.stringify(result));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack : String(err));
  process.exitCode = 1;
});
