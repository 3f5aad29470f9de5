// A container as its networking sees it: the record's fields the network area wires from.
import type { NetworkedContainer } from '../network/network-attachments.js';
import type { ContainerRecord } from './container-record.js';

export function networkedContainer(record: ContainerRecord): NetworkedContainer {
  const hc = record.hostConfig;
  return {
    id: record.id,
    name: record.name.slice(1),
    exposedPorts: record.config.ExposedPorts,
    macAddress: record.config.MacAddress,
    networkMode: hc.NetworkMode ?? '',
    networkDisabled: record.config.NetworkDisabled === true,
    portBindings: hc.PortBindings,
    publishAllPorts: hc.PublishAllPorts,
    links: hc.Links,
    dns: hc.Dns,
    endpointsConfig: record.networkingConfig.EndpointsConfig as NetworkedContainer['endpointsConfig'],
    // a task's addresses on swarm networks are the managers' already
    addressedBySwarm: Object.hasOwn(record.config.Labels ?? {}, 'com.docker.swarm.task.id'),
  };
}
