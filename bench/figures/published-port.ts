// HTTP requests per second through a published port: a busybox httpd serving a small file, run
// with `-p 18080:80` on the default bridge of each engine, loaded with autocannon from "the host",
// that is from inside the engine's own network namespace (bench/http-load.ts through nsenter),
// at 127.0.0.1 and at an address of the host's (a dummy link added to the namespace for the
// figure, removed after). httpd closes every connection after its answer, so each request is a
// new connection: the figure measures the path a connection takes, not HTTP.
//
// The two engines take different paths: dockerd 20.10, with its default userland proxy, serves
// 127.0.0.1 through docker-proxy (its DNAT rules leave 127.0.0.0/8 out), a process copying
// between two connections; the host's address it DNATs with iptables to the container. berth
// DNATs both with the CNI portmap plugin's rules (127.0.0.1 through route_localnet and a
// masquerade); berthd only holds the port, and no connection passes through it.
import { BUSYBOX, containerEngines, type ContainerEngine } from '../container-engines.js';
import { alternateRounds, comparedRow, type Samples } from '../engine-rounds.js';
import type { BenchContext, Figure, Row } from '../figure.js';
import type { HttpLoadInput, HttpLoadResult } from '../http-load.js';
import { addHostAddress, nodeIn } from '../netns.js';

const HOST_PORT = 18080;
/** TEST-NET-2 (RFC 5737): no network of either engine's is there */
const HOST_ADDRESS = '198.51.100.7';
const HOST_LINK = 'bench-host';
const ROUNDS = 3;
const LOAD = { connections: 8, durationS: 4, warmupS: 1 };
const READY_TIMEOUT_MS = 10_000;
const LOAD_TIMEOUT_MS = 60_000;
const HTTPD = 'mkdir -p /www && echo hello > /www/index.html && exec httpd -f -p 80 -h /www';

export const publishedPort: Figure = {
  name: 'published port',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const setup = await containerEngines(ctx, 'port');
    const undo: Array<() => void> = [];
    const removeAddresses = () => {
      for (const u of undo) {
        try {
          u();
        } catch (err) {
          ctx.progress(`the host address was not removed: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    };
    // before the engines' clean-up, which stops berthd and so removes its namespace
    const takeBack = ctx.atClose(async () => removeAddresses());
    try {
      const engines = setup.engines.filter((e) => e.netns !== null);
      if (engines.length < setup.engines.length) ctx.progress(`the reference's namespace is unknown (${ctx.reference?.pidProblem}): berth only`);
      for (const engine of engines) {
        undo.push(addHostAddress(engine.netns as string, HOST_LINK, HOST_ADDRESS));
        const id = await engine.api.create(
          {
            Image: BUSYBOX,
            Cmd: ['sh', '-c', HTTPD],
            ExposedPorts: { '80/tcp': {} },
            HostConfig: { PortBindings: { '80/tcp': [{ HostPort: String(HOST_PORT) }] } },
          },
          `${setup.namePrefix}httpd`,
        );
        await engine.api.start(id);
      }
      const load = (address: string) =>
        alternateRounds(ctx, engines, { warmUps: 0, rounds: ROUNDS, unit: 'req/s' }, async (engine: ContainerEngine) => {
          const input: HttpLoadInput = { url: `http://${address}:${HOST_PORT}/index.html`, ...LOAD, readyTimeoutMs: READY_TIMEOUT_MS };
          return (await nodeIn<HttpLoadResult>(engine.netns as string, 'http-load', input, LOAD_TIMEOUT_MS)).requestsPerS;
        });
      const loopback: Samples = await load('127.0.0.1');
      const hostAddress: Samples = await load(HOST_ADDRESS);
      const figure = (to: string) => `HTTP GET through a published port from the host to ${to}, ${LOAD.connections} connections, one request each`;
      return [
        comparedRow(figure('127.0.0.1'), 'req/s', loopback, { kind: 'atLeastReference' }, 'the reference through docker-proxy (userland proxy), berth through portmap\'s DNAT'),
        comparedRow(figure('the host\'s address'), 'req/s', hostAddress, { kind: 'atLeastReference' }, 'both engines through iptables DNAT'),
      ];
    } finally {
      takeBack();
      removeAddresses();
      await setup.close();
    }
  },
};
