// The body of POST /containers/{id}/update (UpdateConfig: Resources and RestartPolicy), decoded
// with create's Go-decoder leniencies and errors (create-body.ts), and the PidsLimit rules of
// dockerd 20.10's postContainerUpdate.
import { EngineError } from '../../errors.js';
import { decodeStruct, hostConfigFields, type StructSpec } from '../config/create-body.js';
import type { Resources, RestartPolicy } from '../config/types.js';

export interface ContainerUpdate {
  resources: Resources;
  /** absent (or with an empty name): unchanged */
  restartPolicy?: RestartPolicy;
}

/** The fields of Go's container.Resources. */
const RESOURCE_FIELDS = [
  'CpuShares', 'Memory', 'NanoCpus', 'CgroupParent', 'BlkioWeight', 'BlkioWeightDevice', 'BlkioDeviceReadBps',
  'BlkioDeviceWriteBps', 'BlkioDeviceReadIOps', 'BlkioDeviceWriteIOps', 'CpuPeriod', 'CpuQuota', 'CpuRealtimePeriod',
  'CpuRealtimeRuntime', 'CpusetCpus', 'CpusetMems', 'Devices', 'DeviceCgroupRules', 'DeviceRequests', 'KernelMemory',
  'KernelMemoryTCP', 'MemoryReservation', 'MemorySwap', 'MemorySwappiness', 'OomKillDisable', 'PidsLimit', 'Ulimits',
  'CpuCount', 'CpuPercent', 'IOMaximumIOps', 'IOMaximumBandwidth',
];

const updateConfig: StructSpec = {
  goName: 'UpdateConfig',
  fields: Object.fromEntries([...RESOURCE_FIELDS, 'RestartPolicy'].map((k) => [k, hostConfigFields[k]])),
};

/** `pidsLimit`: whether the API version knows PidsLimit in an update (1.40 on); older ones have it ignored. */
export function decodeUpdateBody(body: unknown, opts: { pidsLimit: boolean }): ContainerUpdate {
  // Go's decoder on an empty body
  if (body === undefined) throw new EngineError('system', 'EOF');
  if (body === null) return { resources: {} };
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new EngineError('system', `json: cannot unmarshal ${Array.isArray(body) ? 'array' : typeof body === 'boolean' ? 'bool' : typeof body} into Go value of type container.UpdateConfig`);
  }
  const { RestartPolicy: restartPolicy, ...resources } = decodeStruct(body as Record<string, unknown>, updateConfig, '') as Resources & { RestartPolicy?: RestartPolicy };
  if (!opts.pidsLimit) delete resources.PidsLimit;
  // 0 and any negative number both mean unlimited in an update
  else if (resources.PidsLimit !== undefined && resources.PidsLimit !== null && resources.PidsLimit <= 0) resources.PidsLimit = 0;
  return restartPolicy === undefined ? { resources } : { resources, restartPolicy };
}
