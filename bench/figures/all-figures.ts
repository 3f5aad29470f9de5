// Every figure the benchmark takes, in the order it takes them. Memory comes first, while the
// machine is quiet, then the codec's pure computation and the DNS server (in process); then the
// container figures, lightest first (a run on the default bridge, then cycles with and without a
// user network, and volumes); then the swarm's (init, a worker's join, the node list on five
// berthds, three of them running etcd members, then a service of ten tasks converging and updated
// on three); then the load tests, which heat everything: DNS from inside a container, the API's
// requests, HTTP through a published port, and a 1 GiB transfer between containers; the image
// builds and transfers, which also load the disk, come last, the registry's push and pull last of
// all.
import type { Figure } from '../figure.js';
import { concurrentRun } from './concurrent-run.js';
import { containerCommit } from './container-commit.js';
import { containerLogs } from './container-logs.js';
import { containerLogWrite } from './container-log-write.js';
import { containerCopy } from './container-copy.js';
import { containerCycle } from './container-cycle.js';
import { containerDns } from './container-dns.js';
import { containerExec } from './container-exec.js';
import { containerList } from './container-list.js';
import { containerRun } from './container-run.js';
import { dnsLookup } from './dns-lookup.js';
import { endpointApply } from './endpoint-apply.js';
import { endpointRecordCodec } from './endpoint-record-codec.js';
import { idleMemory } from './idle-memory.js';
import { imageBuild } from './image-build.js';
import { imageLoadSave } from './image-load-save.js';
import { meshLoad } from './mesh-load.js';
import { networkCycle } from './network-cycle.js';
import { networkThroughput } from './network-throughput.js';
import { publishedPort } from './published-port.js';
import { registryTransfer } from './registry-transfer.js';
import { requestLoad } from './request-load.js';
import { runningMemory } from './running-memory.js';
import { serviceConverge } from './service-converge.js';
import { serviceRollingUpdate } from './service-rolling-update.js';
import { startUpTime } from './start-up-time.js';
import { swarmDnsPropagation } from './swarm-dns-propagation.js';
import { swarmInit } from './swarm-init.js';
import { swarmJoin } from './swarm-join.js';
import { swarmNodeList } from './swarm-node-list.js';
import { volumes } from './volumes.js';

export const allFigures: Figure[] = [
  idleMemory,
  runningMemory,
  startUpTime,
  endpointRecordCodec,
  dnsLookup,
  containerRun,
  containerExec,
  containerCycle,
  networkCycle,
  containerList,
  concurrentRun,
  containerCopy,
  containerCommit,
  containerLogs,
  containerLogWrite,
  volumes,
  swarmInit,
  swarmJoin,
  swarmNodeList,
  serviceConverge,
  serviceRollingUpdate,
  endpointApply,
  swarmDnsPropagation,
  meshLoad,
  containerDns,
  requestLoad,
  publishedPort,
  networkThroughput,
  imageBuild,
  imageLoadSave,
  registryTransfer,
];
