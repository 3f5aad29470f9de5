// swarmkit's allocator for tasks, in the leader's pass before the scheduler: a task waiting for a
// node gets an address on each network its spec (else its service's spec) names, and on the
// ingress network when it publishes through the routing mesh, and is then
// `pending`; the scheduler places only tasks so allocated. A task whose network has no address left
// waits. The addresses' keys are claimed in the task's own transaction and released when the
// reaper deletes it.
import { formatRfc3339Nano } from '../../lib/timestamp.js';
import type { Versioned } from '../cluster/cluster-state.js';
import type { SwarmNetworkRecord } from '../networks/network-records.js';
import type { ServiceRecord, TaskAttachment, TaskRecord } from '../services/service-records.js';
import type { TaskWrite } from '../services/service-state.js';
import { addressKey, nextAddress } from './address-allocation.js';
import { attachedNetworks } from './endpoint-allocation.js';

/** swarmkit's allocatedStatusMessage */
const ALLOCATED_MESSAGE = 'pending task scheduling';

export function planAllocation(
  tasks: ReadonlyArray<Versioned<TaskRecord>>,
  services: ReadonlyMap<string, ServiceRecord>,
  networks: ReadonlyMap<string, Versioned<SwarmNetworkRecord>>,
  held: ReadonlySet<string>,
  nowNs: bigint,
): TaskWrite[] {
  const taken = new Set(held);
  const at = formatRfc3339Nano(nowNs);
  const writes: TaskWrite[] = [];
  for (const { value: t, version } of tasks) {
    if (!needsAllocation(t)) continue;
    const service = services.get(t.serviceId);
    const named = (t.spec.Networks ?? []).length > 0 ? t.spec.Networks! : service !== undefined ? attachedNetworks(service.spec) : [];
    // a task publishing through the routing mesh is on the ingress network first, as swarmkit's
    const ingress = (t.endpoint?.ports ?? []).some((p) => p.PublishMode === 'ingress') ? [...networks.values()].find((n) => n.value.spec.ingress)?.value.id : undefined;
    const attachments: TaskAttachment[] = [];
    const claim: string[] = [];
    let complete = true;
    for (const networkId of new Set([...(ingress !== undefined ? [ingress] : []), ...named.map((n) => n.Target)])) {
      const network = networks.get(networkId);
      if (network === undefined) continue;
      const addr = nextAddress(networkId, network.value.pools, taken);
      if (addr === undefined) {
        complete = false;
        break;
      }
      taken.add(addressKey(networkId, addr));
      claim.push(addressKey(networkId, addr));
      attachments.push({ network: network.value, version: network.version, addresses: [addr] });
    }
    if (!complete) {
      // no address left on one of its networks: it waits, and gives back what it took
      for (const key of claim) taken.delete(key);
      continue;
    }
    writes.push({ put: { ...t, networks: attachments, updatedAt: at, status: { timestamp: at, state: 'pending', message: ALLOCATED_MESSAGE } }, version, claim });
  }
  return writes;
}

/** A task the scheduler would place, not allocated yet. */
function needsAllocation(t: TaskRecord): boolean {
  return t.networks === undefined && (t.status.state === 'new' || t.status.state === 'pending') && (t.desiredState === 'running' || t.desiredState === 'ready' || t.desiredState === 'complete');
}

/** The keys of a task's addresses, released with it. */
export function taskAddressKeys(t: TaskRecord): string[] {
  return (t.networks ?? []).flatMap((a) => a.addresses.map((addr) => addressKey(a.network.id, addr)));
}
