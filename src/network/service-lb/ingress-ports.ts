// The routing mesh's published ports held on the node, as dockerd holds them (libnetwork's
// plumbProxy): a socket listens on the port on every address, so that a local process already on
// it is reported, and none takes it while the service publishes it. Connections never reach the
// socket: the node's DNAT (ingress-host.ts) moves them to the ingress sandbox first.
import dgram from 'node:dgram';
import net from 'node:net';
import { EngineError } from '../../errors.js';
import type { IngressProtocol } from './ingress-sandbox.js';

export class IngressPorts {
  /** the sockets, by `port/protocol` (dockerd's key) */
  private readonly held = new Map<string, Promise<() => void>>();

  /** Holds the port unless it holds it already; when another holds it, fails in dockerd's words. */
  async hold(protocol: IngressProtocol, port: number): Promise<void> {
    const key = `${port}/${protocol}`;
    let holding = this.held.get(key);
    if (holding === undefined) {
      holding = listen(protocol, port);
      this.held.set(key, holding);
      holding.catch(() => this.held.delete(key));
    }
    await holding;
  }

  /** Lets the port go; one not held is no error. */
  async release(protocol: IngressProtocol, port: number): Promise<void> {
    const key = `${port}/${protocol}`;
    const holding = this.held.get(key);
    this.held.delete(key);
    (await holding?.catch(() => undefined))?.();
  }

  /** Lets every port go (berthd's stop). */
  async releaseAll(): Promise<void> {
    const all = [...this.held.values()];
    this.held.clear();
    for (const holding of all) (await holding.catch(() => undefined))?.();
  }
}

/** Listens as Go's net.ListenTCP/ListenUDP on ":port" does; the socket's close. */
function listen(protocol: IngressProtocol, port: number): Promise<() => void> {
  // dockerd logs "failed to create proxy for port %d: %v" with Go's *net.OpError text
  const failure = (err: NodeJS.ErrnoException) =>
    new EngineError('conflict', `failed to create proxy for port ${port}: listen ${protocol} :${port}: bind: ${err.code === 'EADDRINUSE' ? 'address already in use' : err.message}`);
  return new Promise((resolve, reject) => {
    if (protocol === 'udp') {
      const socket = dgram.createSocket('udp4');
      socket.once('error', (err) => reject(failure(err)));
      socket.bind({ port, exclusive: true }, () => {
        socket.removeAllListeners('error');
        socket.on('error', () => undefined);
        resolve(() => socket.close());
      });
      return;
    }
    // no host: every address, IPv6's too where there is IPv6, as Go's ":port"
    const server = net.createServer((s) => s.destroy());
    server.once('error', (err) => reject(failure(err)));
    server.listen({ port, exclusive: true, backlog: 1 }, () => {
      server.removeAllListeners('error');
      server.on('error', () => undefined);
      resolve(() => server.close());
    });
  });
}
