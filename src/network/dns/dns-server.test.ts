// The server on loopback addresses only: the querier, the server and the upstream resolvers the
// test runs are all on 127.53.x.y, so nothing leaves the machine.
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { Resolver } from 'node:dns/promises';
import net from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import dnsPacket, { type Answer, type DecodedPacket, type Packet, type RecordType } from 'dns-packet';
import { DnsRegistry } from './dns-registry.js';
import { DnsServer } from './dns-server.js';
import { frame, TcpFrames } from './tcp-frames.js';
import type { Upstream } from './upstream-forwarder.js';

const SERVER = '127.53.0.1';
const SECOND_SERVER = '127.53.0.2';
/** A container on network 'front': the querier of most tests. */
const CLIENT = '127.53.0.10';
/** A swarm task's gwbridge address: it resolves the names of overlay 'appnet'. */
const TASK = '127.53.0.11';
/** An address no container has. */
const STRANGER = '127.53.0.99';
const UPSTREAM = '127.53.1.1';
const SILENT_UPSTREAM = '127.53.1.2';
const FAILING_UPSTREAM = '127.53.1.3';
const TIMEOUT_MS = 300;

const WEB_ID = '3f4e5d6c7b8a91a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7081920';

const registry = new DnsRegistry();
registry.addNetwork('n1', 'front');
registry.addEndpoint('n1', { containerId: 'c'.repeat(64), containerName: 'client', ipv4: CLIENT });
registry.addEndpoint('n1', { containerId: WEB_ID, containerName: 'web', aliases: ['www'], ipv4: '10.1.0.2' });
registry.addEndpoint('n1', { containerId: 'd'.repeat(64), containerName: 'db', ipv4: '10.1.0.3', ipv6: 'fd00::3' });
// forty replicas behind one alias: more A records than 512 bytes hold
for (let i = 0; i < 40; i++) {
  registry.addEndpoint('n1', { containerId: `${i}`.padStart(64, 'e'), containerName: `replica${i}`, aliases: ['many'], ipv4: `10.1.1.${i + 1}` });
}

// service web on overlay 'appnet': VIP 10.0.1.2, named port http (tcp 8080), thirty tasks
registry.swarm.addNetwork('ov1', 'appnet', { ingress: false });
registry.swarm.setServicePorts('svc-web', [{ name: 'http', protocol: 'tcp', targetPort: 8080 }]);
for (let i = 1; i <= 30; i++) {
  const endpoint = { endpointId: `ep${i}`, name: `web.${i}.task${i}`, serviceName: 'web', serviceId: 'svc-web', virtualIp: '10.0.1.2', ip: `10.0.1.${10 + i}`, aliases: [], taskAliases: [], disabled: false };
  registry.swarm.apply('ov1', { kind: 'add', endpoint });
}
registry.addNetwork('ov1', 'appnet', { swarm: true });
registry.addEndpoint('ov1', { containerId: 't'.repeat(64), containerName: 'task', ipv4: '10.0.1.9' });
registry.addQuerier('t'.repeat(64), TASK);

let upstreams: Upstream[] = [];
const asked: string[] = [];
const server = new DnsServer({
  records: registry,
  upstreams: (source) => {
    asked.push(source);
    return upstreams;
  },
  upstreamTimeoutMs: TIMEOUT_MS,
});

/** A resolver the test runs: it answers what `answer` returns for a query, and says nothing for undefined. */
class FakeUpstream {
  readonly seen: { name: string; type: string; id: number; transport: string }[] = [];
  answer: (query: DecodedPacket, transport: 'udp' | 'tcp') => Packet | undefined = () => undefined;
  private readonly udp = dgram.createSocket('udp4');
  private readonly tcp = net.createServer((socket) => {
    const frames = new TcpFrames();
    socket.on('data', (chunk) => {
      for (const m of frames.push(chunk)) {
        const reply = this.reply(m, 'tcp');
        if (reply) socket.write(frame(reply));
      }
    });
    socket.on('error', () => {});
  });

  constructor(private readonly address: string) {
    this.udp.on('message', (m, peer) => {
      const reply = this.reply(m, 'udp');
      if (reply) this.udp.send(reply, peer.port, peer.address);
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.udp.bind(53, this.address, resolve));
    await new Promise<void>((resolve) => this.tcp.listen(53, this.address, resolve));
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.udp.close(() => resolve()));
    await new Promise<void>((resolve) => this.tcp.close(() => resolve()));
  }

  private reply(message: Buffer, transport: 'udp' | 'tcp'): Buffer | undefined {
    const query = dnsPacket.decode(message);
    const q = query.questions![0];
    this.seen.push({ name: q.name, type: q.type, id: query.id!, transport });
    const reply = this.answer(query, transport);
    return reply && dnsPacket.encode({ id: query.id, questions: query.questions, ...reply, type: 'response' });
  }
}

const upstream = new FakeUpstream(UPSTREAM);
const silent = new FakeUpstream(SILENT_UPSTREAM);
const failing = new FakeUpstream(FAILING_UPSTREAM);
failing.answer = () => ({ flags: 2 /* SERVFAIL */ });

before(async () => {
  await Promise.all([upstream.start(), silent.start(), failing.start()]);
  await server.listen(SERVER);
});
after(async () => {
  await server.closeAll();
  await Promise.all([upstream.stop(), silent.stop(), failing.stop()]);
});
afterEach(() => {
  upstream.seen.length = 0;
  asked.length = 0;
  upstream.answer = () => undefined;
  upstreams = [];
});

interface QueryOptions {
  type?: RecordType;
  id?: number;
  from?: string;
  to?: string;
  ednsBytes?: number;
}

function queryPacket(name: string, o: QueryOptions = {}): Packet {
  return {
    type: 'query',
    id: o.id ?? 4242,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ name, type: o.type ?? 'A', class: 'IN' }],
    additionals: o.ednsBytes ? [{ type: 'OPT', name: '.', udpPayloadSize: o.ednsBytes, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }] : [],
  };
}

/** Sends raw bytes from `from` over UDP; the reply, or undefined after `waitMs`. */
function sendUdp(bytes: Buffer, from = CLIENT, to = SERVER, waitMs = 2000): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket('udp4');
    const timer = setTimeout(() => finish(undefined), waitMs);
    const finish = (reply: Buffer | undefined) => {
      clearTimeout(timer);
      socket.close();
      resolve(reply);
    };
    socket.on('error', reject);
    socket.on('message', (m) => finish(m));
    socket.bind(0, from, () => socket.send(bytes, 53, to));
  });
}

async function ask(name: string, o: QueryOptions = {}): Promise<Reply & { bytes: number }> {
  const reply = await sendUdp(dnsPacket.encode(queryPacket(name, o)), o.from, o.to);
  assert.ok(reply, `no reply for ${name}`);
  return { ...decode(reply), bytes: reply.length };
}

/** Several queries on one TCP connection; their replies in the order they come. */
function askTcp(packets: Packet[], from = CLIENT): Promise<Reply[]> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: SERVER, port: 53, localAddress: from });
    const frames = new TcpFrames();
    const replies: Reply[] = [];
    socket.on('connect', () => socket.write(Buffer.concat(packets.map((p) => frame(dnsPacket.encode(p))))));
    socket.on('data', (chunk) => {
      replies.push(...frames.push(chunk).map(decode));
      if (replies.length === packets.length) {
        socket.end();
        resolve(replies);
      }
    });
    socket.on('error', reject);
  });
}

/** dns-packet decodes rcode and opcode by name; its types leave them out. */
type Reply = DecodedPacket & { rcode: string; opcode: string };
const decode = (bytes: Buffer) => dnsPacket.decode(bytes) as Reply;

const addresses = (reply: DecodedPacket) => (reply.answers ?? []).map((a) => (a as { data: string }).data);

describe('DNS server: names of ours', () => {
  it('answers A as Docker does: ID, question echoed, RD kept, RA set, not authoritative, TTL 600', async () => {
    const reply = await ask('WeB', { id: 777 });
    assert.equal(reply.id, 777);
    assert.equal(reply.rcode, 'NOERROR');
    assert.deepEqual(reply.questions, [{ name: 'WeB', type: 'A', class: 'IN' }]);
    assert.equal(reply.flag_qr, true);
    assert.equal(reply.flag_rd, true);
    assert.equal(reply.flag_ra, true);
    assert.equal(reply.flag_aa, false);
    assert.equal(reply.flag_tc, false);
    assert.deepEqual(reply.answers, [{ name: 'WeB', type: 'A', class: 'IN', ttl: 600, flush: false, data: '10.1.0.2' }]);
    assert.deepEqual(reply.additionals, [], 'no OPT record to a query without one');
  });

  it('answers an alias, the short ID and NAME.NETWORK', async () => {
    for (const name of ['www', WEB_ID.slice(0, 12), 'web.front', 'www.front']) {
      assert.deepEqual(addresses(await ask(name)), ['10.1.0.2'], name);
    }
  });

  it('answers AAAA of an IPv4-only name with an empty NOERROR, without asking upstream', async () => {
    upstreams = [{ address: UPSTREAM }];
    const reply = await ask('web', { type: 'AAAA' });
    assert.equal(reply.rcode, 'NOERROR');
    assert.deepEqual(reply.answers, []);
    assert.deepEqual(upstream.seen, []);
    assert.deepEqual(addresses(await ask('db', { type: 'AAAA' })), ['fd00::3']);
  });

  it('answers another type of a name of ours (MX, TXT) with an empty NOERROR', async () => {
    upstreams = [{ address: UPSTREAM }];
    for (const type of ['MX', 'TXT'] as const) {
      const reply = await ask('web', { type });
      assert.equal(reply.rcode, 'NOERROR', type);
      assert.deepEqual(reply.answers, [], type);
    }
    assert.deepEqual(upstream.seen, []);
  });

  it('answers PTR for a container address with name.network', async () => {
    const reply = await ask('2.0.1.10.in-addr.arpa', { type: 'PTR' });
    assert.equal(reply.rcode, 'NOERROR');
    assert.deepEqual(reply.answers, [{ name: '2.0.1.10.in-addr.arpa', type: 'PTR', class: 'IN', ttl: 600, flush: false, data: 'web.front' }]);
  });

  it('echoes EDNS with its own UDP size, and keeps CD', async () => {
    const reply = await ask('web', { ednsBytes: 4096 });
    assert.deepEqual(reply.additionals?.map((a) => a.type === 'OPT' && a.udpPayloadSize), [1232]);
    const cd = await sendUdp(dnsPacket.encode({ ...queryPacket('web'), flags: dnsPacket.CHECKING_DISABLED }));
    assert.equal(decode(cd!).flag_cd, true);
    assert.equal(decode(cd!).flag_rd, false);
  });

  it('truncates a UDP answer over 512 bytes (TC), takes the client\'s EDNS size, and gives all over TCP', async () => {
    const plain = await ask('many');
    assert.equal(plain.flag_tc, true);
    assert.ok(plain.bytes <= 512, `${plain.bytes} bytes`);
    assert.ok(addresses(plain).length > 20, 'as many as fit');
    const edns = await ask('many', { ednsBytes: 4096 });
    assert.equal(edns.flag_tc, false);
    assert.equal(addresses(edns).length, 40);
    const [tcp] = await askTcp([queryPacket('many')]);
    assert.equal(tcp.flag_tc, false);
    assert.equal(addresses(tcp).length, 40);
  });

  it('gives a stub resolver (c-ares) all forty addresses: it follows TC to TCP', async () => {
    const resolver = new Resolver({ timeout: 2000, tries: 1 });
    resolver.setServers([SERVER]);
    resolver.setLocalAddress(CLIENT);
    assert.equal((await resolver.resolve4('many')).length, 40);
    assert.deepEqual(await resolver.resolve4('web'), ['10.1.0.2']);
    assert.deepEqual(await resolver.reverse('10.1.0.2'), ['web.front']);
  });

  it('answers over TCP, several queries on one connection', async () => {
    const replies = await askTcp([queryPacket('web', { id: 1 }), queryPacket('db', { id: 2, type: 'AAAA' })]);
    assert.deepEqual(
      replies.map((r) => [r.id, addresses(r)]),
      [
        [1, ['10.1.0.2']],
        [2, ['fd00::3']],
      ],
    );
  });

  it('answers many queriers at once, each its own ID', async () => {
    const replies = await Promise.all(Array.from({ length: 200 }, (_, i) => ask(i % 2 ? 'web' : 'db', { id: i })));
    replies.forEach((r, i) => {
      assert.equal(r.id, i);
      assert.deepEqual(addresses(r), [i % 2 ? '10.1.0.2' : '10.1.0.3']);
    });
  });

  it('answers a query it answered before with the same answer, under each query\'s own ID', async () => {
    const first = await ask('db', { id: 100 });
    const again = await ask('db', { id: 200 });
    assert.equal(again.id, 200);
    assert.deepEqual({ ...again, id: 100 }, first);
    const [tcp] = await askTcp([queryPacket('db', { id: 300 })]);
    assert.equal(tcp.id, 300);
    assert.deepEqual(addresses(tcp), ['10.1.0.3']);
  });

  it('answers from the records as they are now: a container added or gone since the last answer', async () => {
    const id = '9'.repeat(64);
    assert.equal((await ask('newcomer')).rcode, 'SERVFAIL', 'not ours yet: forwarded, and no upstream');
    registry.addEndpoint('n1', { containerId: id, containerName: 'newcomer', ipv4: '10.1.0.9' });
    assert.deepEqual(addresses(await ask('newcomer')), ['10.1.0.9']);
    assert.deepEqual(addresses(await ask('newcomer')), ['10.1.0.9']);
    registry.addEndpoint('n1', { containerId: id, containerName: 'newcomer', ipv4: '10.1.0.19' });
    assert.deepEqual(addresses(await ask('newcomer')), ['10.1.0.19']);
    registry.removeEndpoint('n1', id);
    assert.equal((await ask('newcomer')).rcode, 'SERVFAIL');
  });

  it('gives each querier its own answer to the same query', async () => {
    upstreams = [{ address: UPSTREAM }];
    upstream.answer = (q) => ({ answers: [{ name: q.questions![0].name, type: 'A', ttl: 30, data: '192.0.2.8' } as Answer] });
    assert.deepEqual(addresses(await ask('web')), ['10.1.0.2']);
    assert.deepEqual(addresses(await ask('web', { from: STRANGER })), ['192.0.2.8'], 'no container: forwarded');
  });

  it('still takes turns among the addresses of a shared alias when asked again', async () => {
    const firsts = new Set<string>();
    for (let i = 0; i < 3; i++) firsts.add(addresses(await ask('many', { ednsBytes: 4096 }))[0]);
    assert.equal(firsts.size, 3);
  });

  it('serves several addresses, and closes one alone', async () => {
    await server.listen(SECOND_SERVER);
    await assert.rejects(server.listen(SECOND_SERVER), /already listens/);
    assert.deepEqual(addresses(await ask('web', { to: SECOND_SERVER })), ['10.1.0.2']);
    await server.close(SECOND_SERVER);
    assert.equal(await sendUdp(dnsPacket.encode(queryPacket('web')), CLIENT, SECOND_SERVER, 300), undefined);
    assert.deepEqual(addresses(await ask('web')), ['10.1.0.2']);
  });

  it('fails to listen on an address in use, and holds nothing there', async () => {
    const other = new DnsServer({ records: registry, upstreams: () => [] });
    await assert.rejects(other.listen(SERVER), /EADDRINUSE/);
    await other.closeAll();
    assert.deepEqual(addresses(await ask('web')), ['10.1.0.2']);
  });
});

describe('DNS server: swarm names', () => {
  const srvData = (reply: DecodedPacket) => (reply.answers ?? []).map((a) => (a as { data: { port: number; target: string } }).data);

  it('answers a service with its VIP and tasks.<service> with every task, to a task querying from its gwbridge address', async () => {
    assert.deepEqual(addresses(await ask('web', { from: TASK })), ['10.0.1.2']);
    const tasks = await ask('tasks.web', { from: TASK, ednsBytes: 4096 });
    assert.equal(addresses(tasks).length, 30);
    assert.equal((await ask('tasks.web', { from: STRANGER })).rcode, 'SERVFAIL', 'a stranger\'s query is forwarded (no upstream here)');
  });

  it('answers SRV by port name with each task as task.network, its A record in the additional section', async () => {
    const reply = await ask('_http._tcp.web', { from: TASK, type: 'SRV', ednsBytes: 4096 });
    assert.equal(reply.rcode, 'NOERROR');
    const data = srvData(reply);
    assert.equal(data.length, 30);
    assert.ok(data.every((d) => d.port === 8080 && /^web\.\d+\.task\d+\.appnet$/.test(d.target)));
    const a = new Map((reply.additionals ?? []).filter((r) => r.type === 'A').map((r) => [r.name, (r as { data: string }).data]));
    assert.equal(a.size, 30);
    assert.equal(a.get('web.7.task7.appnet'), '10.0.1.17');
    assert.deepEqual(addresses(await ask('web.7.task7.appnet', { from: TASK })), ['10.0.1.17'], 'a target resolves as it is named');
  });

  it('truncates an SRV answer over 512 bytes, and gives it all over TCP', async () => {
    const plain = await ask('_http._tcp.web', { from: TASK, type: 'SRV' });
    assert.equal(plain.flag_tc, true);
    assert.ok(plain.bytes <= 512);
    const [tcp] = await askTcp([queryPacket('_http._tcp.web', { type: 'SRV' })], TASK);
    assert.equal(srvData(tcp).length, 30);
    assert.equal(tcp.additionals?.length, 30);
  });

  it('answers NXDOMAIN for an unknown port of a service of ours, and forwards an SRV name not ours', async () => {
    upstreams = [{ address: UPSTREAM }];
    upstream.answer = () => ({ flags: 3 });
    assert.equal((await ask('_ssh._tcp.web', { from: TASK, type: 'SRV' })).rcode, 'NXDOMAIN');
    assert.equal((await ask('_http._udp.web', { from: TASK, type: 'SRV' })).rcode, 'NXDOMAIN');
    assert.equal(upstream.seen.length, 0);
    await ask('_sip._udp.example.com', { from: TASK, type: 'SRV' });
    assert.deepEqual(upstream.seen.map((q) => q.name), ['_sip._udp.example.com']);
  });
});

describe('DNS server: forwarding', () => {
  const upstreamAnswer = (query: DecodedPacket): Packet => ({
    flags: dnsPacket.RECURSION_AVAILABLE,
    answers: [{ name: query.questions![0].name, type: 'A', ttl: 30, data: '192.0.2.7' } as Answer],
  });

  it('relays the upstream answer for a name not ours, with the client\'s ID', async () => {
    upstreams = [{ address: UPSTREAM }];
    upstream.answer = upstreamAnswer;
    const reply = await ask('web.example.com', { id: 31337 });
    assert.equal(reply.id, 31337);
    assert.deepEqual(addresses(reply), ['192.0.2.7']);
    assert.deepEqual(upstream.seen, [{ name: 'web.example.com', type: 'A', id: 31337, transport: 'udp' }]);
    assert.deepEqual(asked, [CLIENT], 'the upstreams are the querier\'s');
  });

  it('forwards for a querier that is no container: it has no names of ours', async () => {
    upstreams = [{ address: UPSTREAM }];
    upstream.answer = upstreamAnswer;
    assert.deepEqual(addresses(await ask('web', { from: STRANGER })), ['192.0.2.7']);
  });

  it('forwards PTR for an address not ours', async () => {
    upstreams = [{ address: UPSTREAM }];
    upstream.answer = (q) => ({ answers: [{ name: q.questions![0].name, type: 'PTR', ttl: 30, data: 'host.example' }] });
    assert.deepEqual(addresses(await ask('7.2.0.192.in-addr.arpa', { type: 'PTR' })), ['host.example']);
  });

  it('relays NXDOMAIN as it comes', async () => {
    upstreams = [{ address: UPSTREAM }];
    upstream.answer = () => ({ flags: 3 });
    assert.equal((await ask('nothing.example')).rcode, 'NXDOMAIN');
  });

  it('answers SERVFAIL within the time limit when the upstream says nothing', async () => {
    upstreams = [{ address: SILENT_UPSTREAM }];
    const start = Date.now();
    const reply = await ask('slow.example');
    const took = Date.now() - start;
    assert.equal(reply.rcode, 'SERVFAIL');
    assert.ok(took >= TIMEOUT_MS - 20 && took < TIMEOUT_MS + 500, `${took} ms`);
  });

  it('asks the next upstream after a silent one, a failing one (SERVFAIL) or a closed port', async () => {
    upstreams = [{ address: SILENT_UPSTREAM }, { address: FAILING_UPSTREAM }, { address: UPSTREAM }];
    upstream.answer = upstreamAnswer;
    assert.deepEqual(addresses(await ask('next.example')), ['192.0.2.7']);
    upstreams = [{ address: UPSTREAM, port: 5 }, { address: UPSTREAM }];
    const start = Date.now();
    assert.deepEqual(addresses(await ask('next.example')), ['192.0.2.7']);
    assert.ok(Date.now() - start < TIMEOUT_MS, 'a closed port fails at once');
  });

  it('asks the next upstream after one it cannot connect to, and lives on', async () => {
    // a UDP connect to the broadcast address fails at once (EACCES), as one with no route does
    // (ENETUNREACH, a host without a default route): no datagram leaves
    upstreams = [{ address: '255.255.255.255' }, { address: UPSTREAM }];
    upstream.answer = upstreamAnswer;
    assert.deepEqual(addresses(await ask('unroutable.example')), ['192.0.2.7']);
    upstreams = [{ address: '255.255.255.255' }];
    assert.equal((await ask('unroutable.example')).rcode, 'SERVFAIL');
  });

  it('asks three upstreams at most, as Docker', async () => {
    upstreams = [{ address: FAILING_UPSTREAM }, { address: FAILING_UPSTREAM }, { address: FAILING_UPSTREAM }, { address: UPSTREAM }];
    upstream.answer = upstreamAnswer;
    assert.equal((await ask('far.example')).rcode, 'SERVFAIL');
    assert.deepEqual(upstream.seen, []);
  });

  it('answers SERVFAIL with no upstreams, as Docker', async () => {
    const reply = await ask('lonely.example', { id: 9 });
    assert.equal(reply.rcode, 'SERVFAIL');
    assert.equal(reply.id, 9);
    assert.deepEqual(reply.questions, [{ name: 'lonely.example', type: 'A', class: 'IN' }]);
  });

  it('relays a truncated UDP answer, then forwards the client\'s TCP retry over TCP', async () => {
    upstreams = [{ address: UPSTREAM }];
    upstream.answer = (q, transport) => (transport === 'udp' ? { flags: dnsPacket.TRUNCATED_RESPONSE } : upstreamAnswer(q));
    const udp = await ask('big.example');
    assert.equal(udp.flag_tc, true);
    const [tcp] = await askTcp([queryPacket('big.example', { id: 5 })]);
    assert.equal(tcp.id, 5);
    assert.deepEqual(addresses(tcp), ['192.0.2.7']);
    assert.deepEqual(
      upstream.seen.map((s) => s.transport),
      ['udp', 'tcp'],
    );
  });

  it('never forwards to itself, as Docker leaves its own address out', async () => {
    upstreams = [{ address: SERVER }, { address: UPSTREAM }];
    upstream.answer = upstreamAnswer;
    assert.deepEqual(addresses(await ask('loop.example')), ['192.0.2.7']);
    assert.equal(upstream.seen.length, 1);
  });

  it('skips an upstream given by name: only addresses are asked', async () => {
    upstreams = [{ address: 'localhost' }, { address: UPSTREAM }];
    upstream.answer = upstreamAnswer;
    assert.deepEqual(addresses(await ask('named.example')), ['192.0.2.7']);
  });
});

describe('DNS server: malformed queries', () => {
  it('says nothing to a message shorter than a header, or to a response', async () => {
    assert.equal(await sendUdp(Buffer.from([1, 2, 3]), CLIENT, SERVER, 200), undefined);
    const response = dnsPacket.encode({ ...queryPacket('web'), type: 'response' });
    assert.equal(await sendUdp(response, CLIENT, SERVER, 200), undefined);
  });

  it('answers FORMERR to a body that does not decode or to two questions, NOTIMP to another opcode', async () => {
    const query = dnsPacket.encode(queryPacket('web', { id: 99 }));
    const cut = await sendUdp(query.subarray(0, query.length - 3));
    assert.deepEqual([decode(cut!).id, decode(cut!).rcode], [99, 'FORMERR']);
    const two = dnsPacket.encode({ ...queryPacket('web'), questions: [{ name: 'web', type: 'A' }, { name: 'db', type: 'A' }] });
    assert.equal(decode((await sendUdp(two))!).rcode, 'FORMERR');
    const status = Buffer.from(query);
    status.writeUInt16BE(status.readUInt16BE(2) | (2 << 11), 2);
    const notImp = decode((await sendUdp(status))!);
    assert.deepEqual([notImp.rcode, notImp.opcode], ['NOTIMP', 'STATUS']);
  });

  it('keeps serving through a flood of garbage, over UDP and TCP', async () => {
    const socket = dgram.createSocket('udp4');
    let formErrs = 0;
    socket.on('message', (m) => (formErrs += decode(m).rcode === 'FORMERR' ? 1 : 0));
    await new Promise<void>((resolve) => socket.bind(0, CLIENT, resolve));
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 256;
    for (let i = 0; i < 5000; i++) {
      const junk = Buffer.from(Array.from({ length: 1 + (i % 300) }, random));
      // half of it with a query's header, so that the decoder meets garbage too
      if (i % 2 && junk.length >= 12) Buffer.from([0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]).copy(junk, 2, 2);
      socket.send(junk, 53, SERVER);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.close();
    assert.ok(formErrs > 100, `${formErrs} FORMERR replies`);
    const tcpJunk = net.connect({ host: SERVER, port: 53, localAddress: CLIENT });
    tcpJunk.on('error', () => {});
    tcpJunk.write(Buffer.from([0, 5, 1, 2, 3, 4, 5, 0xff, 0xff, 9]));
    assert.deepEqual(addresses(await ask('web')), ['10.1.0.2']);
    const [tcp] = await askTcp([queryPacket('web')]);
    assert.deepEqual(addresses(tcp), ['10.1.0.2']);
    tcpJunk.destroy();
  });
});
