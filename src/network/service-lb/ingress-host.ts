// The routing mesh's first hop, on every node (Docker's DOCKER-INGRESS chains): a published port
// on any of the node's addresses is DNAT'd, same port, to the ingress sandbox, which balances it
// over the service's tasks (ingress-sandbox.ts):
//   nat PREROUTING and OUTPUT → BERTH-INGRESS (`-m addrtype --dst-type LOCAL`): `-p PROTO --dport P
//     -j DNAT --to-destination SANDBOX:P`;
//   filter FORWARD → BERTH-INGRESS (first): what goes to the sandbox on P, and its answers, pass;
//     only to and from the sandbox, unlike Docker's, which lets any forwarded packet on P through;
//   nat POSTROUTING → BERTH-INGRESS-LOCAL, with the link the sandbox is reached through: the node's
//     own connections to 127.0.0.1:P leave masqueraded, as Docker's docker_gwbridge rule does.
// Sysctls, in the node's namespace only: IPv4 forwarding, and route_localnet on that link alone
// (a packet from 127.0.0.1 may leave through it before it is masqueraded). The sandbox's address
// is not local, so nothing else is needed.
import { setNetSysctls } from '../../runtime/sysctl.js';
import { applyChainSet, type ChainSet, type OwnedChain } from './chain-set.js';
import type { IngressProtocol } from './ingress-sandbox.js';

export interface IngressPort {
  protocol: IngressProtocol;
  publishedPort: number;
}

export interface IngressHostConfig {
  /** the node's namespace (a file); berthd's own when undefined */
  netns?: string;
  /** the ingress sandbox's address the node reaches it by (on the bridge between them) */
  sandboxAddress: string;
  /** the node's link to the sandbox (docker_gwbridge's counterpart): with it, 127.0.0.1:P works too */
  sandboxLink?: string;
  ports: readonly IngressPort[];
}

const INGRESS = 'BERTH-INGRESS';
const LOCAL = 'BERTH-INGRESS-LOCAL';

export function ingressHostChains(config: Omit<IngressHostConfig, 'netns'>): ChainSet {
  const { sandboxAddress: sandbox, sandboxLink: link, ports } = config;
  const chains: OwnedChain[] = [];
  const jumps: ChainSet['jumps'] = [];
  if (ports.length > 0) {
    const toLocal = `-m addrtype --dst-type LOCAL -j ${INGRESS}`;
    chains.push(
      { table: 'nat', name: INGRESS, rules: ports.map((p) => `-p ${p.protocol} -m ${p.protocol} --dport ${p.publishedPort} -j DNAT --to-destination ${sandbox}:${p.publishedPort}`) },
      {
        table: 'filter',
        name: INGRESS,
        rules: ports.flatMap((p) => [
          `-d ${sandbox}/32 -p ${p.protocol} -m ${p.protocol} --dport ${p.publishedPort} -j ACCEPT`,
          `-s ${sandbox}/32 -p ${p.protocol} -m ${p.protocol} --sport ${p.publishedPort} -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`,
        ]),
      },
    );
    jumps.push(
      { table: 'nat', from: 'PREROUTING', rule: toLocal, position: 'bottom' },
      { table: 'nat', from: 'OUTPUT', rule: toLocal, position: 'bottom' },
      { table: 'filter', from: 'FORWARD', rule: `-j ${INGRESS}`, position: 'top' },
    );
    if (link !== undefined) {
      chains.push({ table: 'nat', name: LOCAL, rules: [`-d ${sandbox}/32 -o ${link} -m addrtype --src-type LOCAL -j MASQUERADE`] });
      jumps.push({ table: 'nat', from: 'POSTROUTING', rule: `-j ${LOCAL}`, position: 'bottom' });
    }
  }
  return { owns: (chain) => chain === INGRESS || chain === LOCAL, chains, jumps };
}

/** Makes the node's namespace publish exactly `config.ports`: none leaves no chain and no jump. Whether its rules changed. */
export async function programIngressHost(config: IngressHostConfig): Promise<boolean> {
  if (config.ports.length > 0) {
    const link = config.sandboxLink;
    // slashes: a link's name may hold a dot (eth0.10), which sysctl's dotted form would split
    await setNetSysctls(config.netns, { 'net.ipv4.ip_forward': '1', ...(link === undefined ? {} : { [`net/ipv4/conf/${link}/route_localnet`]: '1' }) });
  }
  return applyChainSet(config.netns, ingressHostChains(config));
}
