// Endpoint records a node applies per second: what its swarm agent does with the changes of a
// network's endpoint table, in process, with the node's real consumers: NetworkTables takes whole
// snapshots, as the dispatcher sends them; its endpoint_table watch turns each change into
// libnetwork's (endpointChanges), then into the network area's (swarmEndpointChange), which
// SwarmEndpoints hands to the DNS names (SwarmNames) and the VIP load balancers (ServiceBalancers)
// of one container on the network: a network namespace made for the figure, where the balancers'
// iptables-restore really runs. The records: 50 services with a VIP each on one network, 10 000
// tasks `svcS.N.<id>` with distinct addresses in 10.0.0.0/16. A round grows the table to 10 000
// records in 10 snapshots of +1 000, then disables every record (service_disabled) in 10 more;
// timed from the first snapshot's apply until the balancers have settled after the last, the
// event loop let run between snapshots (they come from the network, not in one go): records/s is
// 20 000 / seconds. Between rounds, untimed, the namespace's rules are emptied again.
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { SwarmNames } from '../../src/network/dns/swarm-names.js';
import { ServiceBalancers } from '../../src/network/service-lb/service-balancers.js';
import { programServiceVips } from '../../src/network/service-lb/service-vips.js';
import { SwarmEndpoints } from '../../src/network/swarm-endpoints.js';
import { endpointChanges, swarmEndpointChange } from '../../src/swarm/endpoints/endpoint-changes.js';
import { ENDPOINT_TABLE, NetworkTables, type TableEntry } from '../../src/swarm/endpoints/network-tables.js';
import { encodeEndpointRecord } from '../../src/swarm/endpoint-record.js';
import type { BenchContext, Figure, Row } from '../figure.js';
import { median } from '../median.js';
import { createNetns, execIn, removeNetns } from '../netns.js';

const SERVICES = 50;
const RECORDS = 10_000;
const STEPS = 10;
const ROUNDS = 5;
const WARM_UPS = 1;
const NETWORK = { id: 'benchendpointsnetwork0000', name: 'bench', ingress: false };
const CONTAINER_ID = 'bench-endpoint-apply';

/** Task i: service i mod 50, slot i div 50 + 1; VIPs 10.0.0.2…, tasks from 10.0.1.0 on. */
function record(i: number, disabled: boolean): TableEntry {
  const s = i % SERVICES;
  const serviceId = `benchservice${String(s).padStart(13, '0')}`;
  const taskId = `benchtask${String(i).padStart(16, '0')}`;
  const addr = 256 + i;
  const value = encodeEndpointRecord({
    name: `svc${s}.${Math.floor(i / SERVICES) + 1}.${taskId}`,
    serviceName: `svc${s}`,
    serviceId,
    virtualIp: `10.0.0.${2 + s}`,
    endpointIp: `10.0.${addr >> 8}.${addr & 255}`,
    aliases: [],
    taskAliases: [],
    serviceDisabled: disabled,
  });
  return { key: `endpoint${String(i).padStart(16, '0')}`, value };
}

/** The 20 snapshots of a round, each the whole table of the network. */
function snapshots(): TableEntry[][] {
  const enabled = Array.from({ length: RECORDS }, (_, i) => record(i, false));
  const disabled = Array.from({ length: RECORDS }, (_, i) => record(i, true));
  const per = RECORDS / STEPS;
  const out: TableEntry[][] = [];
  for (let k = 1; k <= STEPS; k++) out.push(enabled.slice(0, k * per));
  for (let k = 1; k <= STEPS; k++) out.push([...disabled.slice(0, k * per), ...enabled.slice(k * per)]);
  return out;
}

export const endpointApply: Figure = {
  name: 'swarm endpoint records applied',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const netns = createNetns(path.join(ctx.makeDir('endpoint-apply'), 'container.netns'));
    const takeBack = ctx.atClose(async () => removeNetns(netns));
    try {
      const steps = snapshots();
      const changes = steps.length * (RECORDS / STEPS);
      const log = pino({ level: 'silent' });
      const samples: number[] = [];
      for (let round = 0; round < WARM_UPS + ROUNDS; round++) {
        await programServiceVips(netns, []);
        let restoreRounds = 0;
        const balancers = new ServiceBalancers({
          containersOn: () => {
            restoreRounds++;
            return [{ containerId: CONTAINER_ID, netns }];
          },
          networksOf: () => [NETWORK.id],
          log,
        });
        const names = new SwarmNames();
        const endpoints = new SwarmEndpoints(names, balancers, { apply() {} });
        const tables = new NetworkTables();
        endpoints.addNetworks([NETWORK]);
        tables.watch(ENDPOINT_TABLE, (e) => {
          for (const change of endpointChanges(e, log)) endpoints.apply(change.networkId, swarmEndpointChange(change));
        });
        const startedMs = performance.now();
        for (const entries of steps) {
          tables.apply({ [NETWORK.id]: { [ENDPOINT_TABLE]: entries } });
          await new Promise((resolve) => setImmediate(resolve));
        }
        await balancers.settled();
        const rate = changes / ((performance.now() - startedMs) / 1000);
        const vip = names.lookup(NETWORK.id, 'svc0');
        if (vip === undefined) throw new Error('svc0 has no name after the round: the records did not reach DNS');
        if (round < WARM_UPS) continue;
        samples.push(rate);
        ctx.progress(`round ${samples.length}: ${rate.toFixed(0)} records/s, ${restoreRounds} rounds of the balancers, ${ruleCount(netns)} iptables rules in the container's namespace at the end`);
      }
      return [
        {
          figure: `endpoint records applied by a node: ${RECORDS} tasks of ${SERVICES} services added, then disabled, in ${2 * STEPS} snapshots, until DNS and a container's VIP rules settle`,
          unit: 'records/s',
          berth: median(samples),
          reference: null,
          target: { kind: 'atLeast', limit: 10_000 },
          samples: { berth: samples, reference: [] },
          note: 'berth only, in process: the reference\'s swarm load balancing needs IPVS, which this kernel lacks',
        },
      ];
    } finally {
      takeBack();
      removeNetns(netns);
    }
  },
};

/** The rules (`-A` lines) of every table in the namespace. */
function ruleCount(netns: string): number {
  return execIn(netns, 'iptables-save', []).split('\n').filter((l) => l.startsWith('-A ')).length;
}
