// A container's published ports (HostConfig.PortBindings, and with PublishAllPorts every exposed
// port without a binding), and the host ports they hold. As dockerd's userland proxy does, berthd
// listens on each host port it publishes: a port another process holds fails the start with
// dockerd's words, and while berthd holds it no process takes it. The connections themselves go
// to the container through portmap's DNAT, never through berthd; one that reaches berthd's socket
// (what the DNAT rules do not cover) is closed. An empty or zero host port gets one the kernel
// picks from its ephemeral range.
import dgram from 'node:dgram';
import net from 'node:net';
import { EngineError } from '../errors.js';
import type { PortMapping } from './cni-lists.js';

export type PortProtocol = 'tcp' | 'udp' | 'sctp';

/** One binding asked for: a host port range of one port or several (the first free one is taken). */
export interface PortRequest {
  containerPort: number;
  protocol: PortProtocol;
  hostIp: string;
  /** [first, last]; [0, 0] for a port the kernel picks */
  hostPorts: [number, number];
}

/** What the container publishes, from its configuration (dockerd's nat.ParsePortSpecs forms were checked at create). */
export function portRequests(exposedPorts: Readonly<Record<string, unknown>> | null | undefined, bindings: Readonly<Record<string, Array<{ HostIp?: string; HostPort?: string }> | null>> | null | undefined, publishAll: boolean): PortRequest[] {
  const out: PortRequest[] = [];
  const bound = new Set<string>();
  for (const [key, list] of Object.entries(bindings ?? {})) {
    const { port, protocol } = parsePortKey(key);
    bound.add(`${port}/${protocol}`);
    for (const b of list ?? [{}]) out.push({ containerPort: port, protocol, hostIp: b.HostIp ?? '', hostPorts: parseHostPorts(b.HostPort ?? '') });
  }
  if (publishAll) {
    for (const key of Object.keys(exposedPorts ?? {})) {
      const { port, protocol } = parsePortKey(key);
      if (!bound.has(`${port}/${protocol}`)) out.push({ containerPort: port, protocol, hostIp: '', hostPorts: [0, 0] });
    }
  }
  return out;
}

function parsePortKey(key: string): { port: number; protocol: PortProtocol } {
  const [port, protocol = 'tcp'] = key.split('/');
  return { port: Number(port), protocol: protocol.toLowerCase() as PortProtocol };
}

function parseHostPorts(text: string): [number, number] {
  if (text === '') return [0, 0];
  const [first, last = first] = text.split('-').map(Number);
  return [first, last];
}

interface Held {
  mapping: PortMapping;
  close(): void;
}

export class PublishedPorts {
  /** host ports berthd holds, by container; the key `proto/ip/port` */
  private readonly held = new Map<string, Held[]>();
  private readonly taken = new Set<string>();

  /**
   * Holds a host port for every request, the first free of each range; all or none. `endpoint`
   * names the endpoint in dockerd's message when a port can't be had.
   */
  async publish(containerId: string, requests: readonly PortRequest[], endpoint: { name: string; id: string }): Promise<PortMapping[]> {
    const held: Held[] = [];
    try {
      for (const r of requests) held.push(await this.holdOne(r));
    } catch (err) {
      for (const h of held) h.close();
      throw new EngineError('system', `driver failed programming external connectivity on endpoint ${endpoint.name} (${endpoint.id}): ${(err as Error).message}`);
    }
    this.held.set(containerId, [...(this.held.get(containerId) ?? []), ...held]);
    return held.map((h) => h.mapping);
  }

  /** Lets the container's host ports go. */
  release(containerId: string): void {
    for (const h of this.held.get(containerId) ?? []) h.close();
    this.held.delete(containerId);
  }

  private async holdOne(r: PortRequest): Promise<Held> {
    const [first, last] = r.hostPorts;
    let lastError: Error | undefined;
    for (let port = first; port <= last; port++) {
      const key = `${r.protocol}/${r.hostIp}/${port}`;
      if (port !== 0 && this.taken.has(key)) {
        lastError = new Error(`Bind for ${r.hostIp || '0.0.0.0'}:${port} failed: port is already allocated`);
        continue;
      }
      try {
        const { hostPort, close } = await listenOn(r.protocol, r.hostIp, port);
        const mapping: PortMapping = { hostPort, containerPort: r.containerPort, protocol: r.protocol, ...(r.hostIp ? { hostIP: r.hostIp } : {}) };
        const heldKey = `${r.protocol}/${r.hostIp}/${hostPort}`;
        this.taken.add(heldKey);
        return { mapping, close: () => (close(), this.taken.delete(heldKey)) };
      } catch (err) {
        lastError = err as Error;
      }
    }
    throw lastError ?? new Error(`no free host port between ${first} and ${last}`);
  }
}

/** Listens on the host port (the kernel's pick for 0): the reservation, in dockerd's words when it fails. */
function listenOn(protocol: PortProtocol, hostIp: string, port: number): Promise<{ hostPort: number; close(): void }> {
  const address = hostIp || '0.0.0.0';
  const family = net.isIPv6(address) ? '6' : '4';
  const proxyError = (err: NodeJS.ErrnoException) =>
    new Error(`Error starting userland proxy: listen ${protocol}${family} ${address.includes(':') ? `[${address}]` : address}:${port}: bind: ${err.code === 'EADDRINUSE' ? 'address already in use' : err.message}`);
  return new Promise((resolve, reject) => {
    if (protocol === 'udp') {
      const socket = dgram.createSocket(family === '6' ? 'udp6' : 'udp4');
      socket.once('error', (err) => reject(proxyError(err)));
      socket.bind({ address, port, exclusive: true }, () => {
        socket.removeAllListeners('error');
        socket.on('error', () => undefined);
        resolve({ hostPort: socket.address().port, close: () => socket.close() });
      });
      return;
    }
    // sctp: Node has no socket for it; the kernel's DNAT is the whole of it
    if (protocol === 'sctp') {
      resolve({ hostPort: port, close: () => undefined });
      return;
    }
    const server = net.createServer((s) => s.destroy());
    server.once('error', (err) => reject(proxyError(err)));
    server.listen({ host: address, port, exclusive: true, backlog: 1 }, () => {
      server.removeAllListeners('error');
      server.on('error', () => undefined);
      resolve({ hostPort: (server.address() as net.AddressInfo).port, close: () => server.close() });
    });
  });
}
