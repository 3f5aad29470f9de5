// Each node's address on the ingress network, where its routing mesh sandbox sits (swarmkit's
// allocator gives every node such a network attachment): allocated by the leader's pass for each
// node without one, its address claimed in the same transaction, and given back, with the
// attachment, when the node is removed or the ingress network it was on is gone.
import { decode, encode, type ClusterState } from '../cluster/cluster-state.js';
import type { SwarmNetworkRecord } from '../networks/network-records.js';
import { addressKey, nextAddress } from './address-allocation.js';

export const NODE_ATTACHMENTS = '/node-attachments/';

export interface NodeAttachment {
  networkId: string;
  /** with its prefix length: 10.0.0.2/24 */
  address: string;
}

export async function nodeAttachment(state: ClusterState, nodeId: string): Promise<NodeAttachment | undefined> {
  const kv = await state.call(() => state.store.get(NODE_ATTACHMENTS + nodeId));
  return kv === undefined ? undefined : decode<NodeAttachment>(kv.value);
}

/**
 * Gives each node in `nodeIds` an address on `ingress` (or none, without an ingress network), and
 * takes back the attachments of nodes that are gone and of networks that are not the ingress one.
 * `held` is the allocation keys held now. False when a write lost a race: the pass runs again.
 */
export async function allocateNodeAttachments(state: ClusterState, nodeIds: readonly string[], ingress: SwarmNetworkRecord | undefined, held: ReadonlySet<string>): Promise<boolean> {
  const { kvs } = await state.call(() => state.store.range(NODE_ATTACHMENTS));
  const had = new Map(kvs.map((kv) => [kv.key.slice(NODE_ATTACHMENTS.length), { attachment: decode<NodeAttachment>(kv.value), version: kv.modRevision }]));
  const nodes = new Set(nodeIds);
  const taken = new Set(held);
  let complete = true;
  for (const [nodeId, { attachment, version }] of had) {
    if (nodes.has(nodeId) && attachment.networkId === ingress?.id) continue;
    const { succeeded } = await state.call(() =>
      state.store.txn([{ key: NODE_ATTACHMENTS + nodeId, modRevision: version }], [{ delete: { key: NODE_ATTACHMENTS + nodeId } }, { delete: { key: addressKey(attachment.networkId, attachment.address) } }]),
    );
    complete &&= succeeded;
    had.delete(nodeId);
  }
  if (ingress === undefined) return complete;
  for (const nodeId of nodes) {
    if (had.has(nodeId)) continue;
    const address = nextAddress(ingress.id, ingress.pools, taken);
    if (address === undefined) return false;
    const claim = addressKey(ingress.id, address);
    taken.add(claim);
    const { succeeded } = await state.call(() =>
      state.store.txn(
        [
          { key: NODE_ATTACHMENTS + nodeId, modRevision: 0 },
          { key: claim, modRevision: 0 },
        ],
        [{ put: { key: NODE_ATTACHMENTS + nodeId, value: encode({ networkId: ingress.id, address } satisfies NodeAttachment) } }, { put: { key: claim, value: encode({ holder: nodeId }) } }],
      ),
    );
    complete &&= succeeded;
  }
  return complete;
}
