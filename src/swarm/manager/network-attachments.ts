// Swarm networks a plain container joins on a node (`docker run --network <attachable overlay>`),
// as swarmkit's ResourceAllocator gives them (AttachNetwork, DetachNetwork): the network must be
// attachable; the container gets an address on it, claimed in the store with the attachment
// (/attachments/<node>/<container>/<network>) in one transaction, and given back when it leaves.
// Asking again for a container that has one gives the same one (its restart).
import { EngineError } from '../../errors.js';
import { addressKey, nextAddress } from '../allocator/address-allocation.js';
import { decode, encode, type ClusterState } from '../cluster/cluster-state.js';
import { findNetwork } from '../networks/network-control.js';
import { networkView } from '../networks/network-records.js';
import type { ServiceState } from '../services/service-state.js';
import type { NetworkAttachRequest, NetworkAttachResponse, NetworkDetachRequest } from '../transport/cluster-protocol.js';

export const ATTACHMENTS = '/attachments/';
const ATTEMPTS = 5;

interface Attachment {
  networkId: string;
  /** with its prefix length */
  address: string;
}

const attachmentsOf = (nodeId: string, containerId: string) => `${ATTACHMENTS}${nodeId}/${containerId}/`;

export async function attachNetwork(services: ServiceState, nodeId: string, req: NetworkAttachRequest): Promise<NetworkAttachResponse> {
  const state = services.cluster;
  if (typeof req?.target !== 'string' || typeof req.containerId !== 'string' || !/^[0-9a-f]{64}$/.test(req.containerId)) throw new EngineError('invalidParameter', 'a network and a container ID are required');
  const found = (await findNetwork(state, req.target).catch(() => undefined))?.value;
  if (found === undefined) throw new EngineError('notFound', `network ${req.target} not found`);
  if (!found.spec.attachable || found.spec.ingress) throw new EngineError('forbidden', `rpc error: code = PermissionDenied desc = network ${req.target} not manually attachable`);
  const key = attachmentsOf(nodeId, req.containerId) + found.id;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const had = await state.call(() => state.store.get(key));
    if (had !== undefined) return { network: networkView(found), address: decode<Attachment>(had.value).address };
    const address = nextAddress(found.id, found.pools, await services.heldAllocations());
    if (address === undefined) throw new EngineError('unavailable', 'no available addresses on this pool');
    const claim = addressKey(found.id, address);
    const { succeeded } = await state.call(() =>
      state.store.txn(
        [
          { key, modRevision: 0 },
          { key: claim, modRevision: 0 },
        ],
        [{ put: { key, value: encode({ networkId: found.id, address } satisfies Attachment) } }, { put: { key: claim, value: encode({ holder: req.containerId }) } }],
      ),
    );
    if (succeeded) return { network: networkView(found), address };
  }
  throw new EngineError('system', 'rpc error: code = Unknown desc = update out of sequence');
}

/** Every swarm network address of the container goes back. */
export async function detachNetwork(state: ClusterState, nodeId: string, req: NetworkDetachRequest): Promise<void> {
  if (typeof req?.containerId !== 'string' || req.containerId.includes('/')) throw new EngineError('invalidParameter', 'a container ID is required');
  const { kvs } = await state.call(() => state.store.range(attachmentsOf(nodeId, req.containerId)));
  for (const kv of kvs) {
    const { networkId, address } = decode<Attachment>(kv.value);
    await state.call(() => state.store.txn([{ key: kv.key, modRevision: kv.modRevision }], [{ delete: { key: kv.key } }, { delete: { key: addressKey(networkId, address) } }]));
  }
}

/** The networks the node's plain containers are attached to. */
export async function attachedNetworkIds(state: ClusterState, nodeId: string): Promise<Set<string>> {
  const { kvs } = await state.call(() => state.store.range(`${ATTACHMENTS}${nodeId}/`));
  return new Set(kvs.map((kv) => decode<Attachment>(kv.value).networkId));
}
