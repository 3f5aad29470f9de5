// berth's public library: what other programs may import from the package (package.json
// `exports`). Everything else under src/ is the daemon's own and may change at any time.
export {
  decodeEndpointRecord,
  encodeEndpointRecord,
  endpointRecordFromJson,
  endpointRecordToJson,
  MAX_ENDPOINT_RECORD_BYTES,
  type CodecOptions,
  type EndpointRecordInit,
} from './swarm/endpoint-record.js';
export { InvalidEndpointRecordError } from './swarm/endpoint-record-error.js';
export { checkPortConfigs, PublishedPorts, type PortConfigInit } from './swarm/published-ports.js';
export {
  DEFAULT_DYNAMIC_NODE_PORT_RANGE,
  DEFAULT_NODE_PORT_RANGE,
  parseNodePortRanges,
  type NodePortRanges,
  type PortRange,
} from './swarm/node-port-ranges.js';
export {
  EndpointRecordSchema,
  PortConfig_Protocol as Protocol,
  PortConfigSchema,
  type EndpointRecord,
  type EndpointRecordJson,
  type PortConfig,
  type PortConfigJson,
} from './generated/libnetwork/agent_pb.js';
