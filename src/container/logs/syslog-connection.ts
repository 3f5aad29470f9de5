// A connection to a syslog server, dialled as srslog dials it (net.Dial, tls.Dial), with Go's
// error texts: "dial tcp 127.0.0.1:514: connect: connection refused", "dial udp: address 99999:
// invalid port", "x509: certificate signed by unknown authority", "EOF" for a server that hangs up
// during the handshake. UDP sends each message as one datagram of a connected socket, unixgram too
// (through socat: node:dgram has no unix sockets); tcp, tcp+tls and unix write them to one stream.
import dgram from 'node:dgram';
import { lookup } from 'node:dns/promises';
import net from 'node:net';
import tls from 'node:tls';
import { goErrnoText } from '../../lib/go-errno.js';
import { openDatagramRelay, type DatagramRelay } from '../../runtime/datagram-relay.js';
import { readSyslogTls, splitHostPort, SyslogOptionError, type SyslogConfig } from './syslog-options.js';

/** A dial that failed, with Go's message. */
export class SyslogDialError extends Error {}

export interface SyslogConnection {
  /** Sends one framed message; what becomes of it comes to the dial's events. */
  send(bytes: Buffer): void;
  /** bytes handed over but not yet sent */
  bufferedBytes(): number;
  /** resolves once bufferedBytes() is back to 0 (or the connection failed) */
  drained(): Promise<void>;
  /** Ends it after what is buffered; destroy() cuts it short. */
  end(): Promise<void>;
  destroy(): void;
}

/** What a connection tells after its dial. */
export interface SyslogEvents {
  /** a message went out */
  sent(): void;
  /**
   * A message could not be sent (`broken` false: UDP's datagrams, each on its own), or the
   * connection is gone (`broken`, said once; a new dial is needed).
   */
  failed(err: Error, broken: boolean): void;
}

/** Connects to the target. */
export async function dialSyslog(config: SyslogConfig, events: SyslogEvents): Promise<SyslogConnection> {
  switch (config.network) {
    case 'udp':
      return dialUdp(config.address, events);
    case 'tcp':
    case 'unix':
      return streamConnection(await connectStream(config, () => net.connect(config.network === 'unix' ? { path: config.address } : tcpTarget(config.address))), events);
    case 'tcp+tls':
      return streamConnection(await connectTls(config), events);
    case 'unixgram':
      return dialUnixgram(config.address, events);
    case 'local':
      return dialLocal(events);
  }
}

const LOCAL_SYSLOG_PATHS = ['/dev/log', '/var/run/syslog', '/var/run/log'];

/** srslog's unixSyslog: the first of the usual local sockets that takes a connection, datagram sockets first. */
async function dialLocal(events: SyslogEvents): Promise<SyslogConnection> {
  const dials = [...LOCAL_SYSLOG_PATHS.map((path) => () => dialUnixgram(path, events)), ...LOCAL_SYSLOG_PATHS.map((path) => async () => streamConnection(await connectStream({ network: 'unix', address: path }, () => net.connect({ path })), events))];
  for (const dial of dials) {
    try {
      return await dial();
    } catch {
      // the next one
    }
  }
  throw new SyslogDialError('Unix syslog delivery error');
}

/** A unix datagram socket, through socat (runtime/datagram-relay.ts): one datagram a message. */
async function dialUnixgram(path: string, events: SyslogEvents): Promise<SyslogConnection> {
  let relay: DatagramRelay;
  try {
    relay = await openDatagramRelay(path);
  } catch (err) {
    throw new SyslogDialError((err as Error).message);
  }
  let failed = false;
  void relay.closed.then((why) => {
    if (failed) return;
    failed = true;
    events.failed(new Error(why ?? 'the datagram relay ended'), true);
  });
  let waiting: Array<() => void> = [];
  const settle = () => {
    if (relay.queuedBytes() > 0 && !failed) return;
    for (const w of waiting.splice(0)) w();
  };
  void relay.closed.then(settle);
  const drained = () =>
    new Promise<void>((resolve) => {
      waiting.push(resolve);
      settle();
    });
  return {
    send: (bytes) => {
      if (failed) return;
      relay.send(bytes).then(
        () => {
          events.sent();
          settle();
        },
        // the relay's end tells the failure
        () => settle(),
      );
    },
    bufferedBytes: () => (failed ? 0 : relay.queuedBytes()),
    drained,
    end: async () => {
      failed = true;
      relay.end();
      await relay.closed;
      waiting = [];
    },
    destroy: () => {
      failed = true;
      relay.kill();
    },
  };
}

interface HostPort {
  host: string;
  port: number;
}

/** host:port as Go's dialer reads it; an unusable port fails as Go's does. */
function hostPortOf(network: string, address: string): HostPort {
  const split = splitHostPort(address);
  if (typeof split === 'string') throw new SyslogDialError(`dial ${network}: address ${address}: ${split}`);
  const port = split.port === '' ? 0 : Number(split.port);
  if (!/^\d*$/.test(split.port) || port > 65535) throw new SyslogDialError(`dial ${network}: address ${split.port}: invalid port`);
  return { host: split.host, port };
}

function tcpTarget(address: string): net.NetConnectOpts {
  const { host, port } = hostPortOf('tcp', address);
  return { host: host || 'localhost', port };
}

function goAddress(address: string | undefined, port: number | undefined): string {
  if (address === undefined) return '';
  return `${address.includes(':') ? `[${address}]` : address}:${port ?? ''}`;
}

/** A failed connect as Go words it: "dial tcp 127.0.0.1:514: connect: connection refused". */
function dialError(network: string, err: NodeJS.ErrnoException & { address?: string; port?: number; hostname?: string }, target: string): SyslogDialError {
  if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN' || err.code === 'EAI_NODATA') return new SyslogDialError(`dial ${network}: lookup ${err.hostname ?? target}: no such host`);
  const text = goErrnoText(err.code);
  if (text === undefined) return new SyslogDialError(`dial ${network} ${target}: ${err.message}`);
  const where = network === 'unix' || network === 'unixgram' ? target : goAddress(err.address, err.port) || target;
  return new SyslogDialError(`dial ${network} ${where}: connect: ${text}`);
}

function connectStream(config: Pick<SyslogConfig, 'network' | 'address'>, connect: () => net.Socket): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    let socket: net.Socket;
    try {
      socket = connect();
    } catch (err) {
      reject(err instanceof SyslogDialError ? err : new SyslogDialError(String((err as Error).message)));
      return;
    }
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      socket.destroy();
      reject(dialError(config.network === 'unix' ? 'unix' : 'tcp', err, config.address));
    });
  });
}

async function connectTls(config: SyslogConfig): Promise<net.Socket> {
  const files = readSyslogTls(config.tls ?? { skipVerify: false });
  const { host, port } = hostPortOf('tcp', config.address);
  let secureContext: tls.SecureContext;
  try {
    // the system's roots with the CA file's, as Go's SystemCertPool with the file appended
    secureContext = tls.createSecureContext({ ca: files.ca ? [...tls.rootCertificates, ...files.ca] : undefined, cert: files.cert, key: files.key, minVersion: 'TLSv1.2' });
  } catch (err) {
    const mismatch = /key values mismatch/.test((err as Error).message);
    throw new SyslogOptionError(`Could not load X509 key pair: ${mismatch ? 'tls: private key does not match public key' : (err as Error).message}`);
  }
  const name = host || 'localhost';
  return new Promise((resolve, reject) => {
    let connected = false;
    const socket = tls.connect({ host: name, port, secureContext, servername: net.isIP(name) ? undefined : name, rejectUnauthorized: !config.tls?.skipVerify });
    socket.once('connect', () => (connected = true));
    socket.once('secureConnect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (err: NodeJS.ErrnoException & { cert?: { subjectaltname?: string } }) => {
      socket.destroy();
      if (!connected) reject(dialError('tcp', err, config.address));
      else reject(new SyslogDialError(tlsErrorText(err, name)));
    });
  });
}

/** A handshake's failure as Go's crypto/tls and x509 word it. */
function tlsErrorText(err: NodeJS.ErrnoException & { reason?: string; cert?: { subjectaltname?: string } }, host: string): string {
  switch (err.code) {
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'UNABLE_TO_GET_ISSUER_CERT':
      return 'x509: certificate signed by unknown authority';
    case 'CERT_HAS_EXPIRED':
      return 'x509: certificate has expired or is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID': {
      const names = (err.cert?.subjectaltname ?? '').split(', ').filter((n) => n.startsWith(net.isIP(host) ? 'IP Address:' : 'DNS:')).map((n) => n.slice(n.indexOf(':') + 1));
      if (names.length === 0) return net.isIP(host) ? `x509: cannot validate certificate for ${host} because it doesn't contain any IP SANs` : `x509: certificate is not valid for any names, but wanted to match ${host}`;
      return `x509: certificate is valid for ${names.join(', ')}, not ${host}`;
    }
    case 'ECONNRESET':
      return 'EOF';
    default:
      return err.message;
  }
}

function streamConnection(socket: net.Socket, events: SyslogEvents): SyslogConnection {
  let failed = false;
  const fail = (err: Error) => {
    if (failed) return;
    failed = true;
    socket.destroy();
    events.failed(err, true);
  };
  socket.on('error', fail);
  // the server hung up: what comes next can't be sent
  socket.on('end', () => fail(new Error('EOF')));
  socket.on('close', () => fail(new Error('connection closed')));
  // syslog servers send nothing back; whatever comes is read and dropped
  socket.resume();
  return {
    send: (bytes) => {
      if (failed) return;
      socket.write(bytes, (err) => {
        if (!err) events.sent();
      });
    },
    bufferedBytes: () => (failed ? 0 : socket.writableLength),
    drained: () =>
      new Promise<void>((resolve) => {
        if (failed || socket.writableLength === 0) return resolve();
        const done = () => {
          socket.off('drain', done);
          socket.off('close', done);
          resolve();
        };
        socket.on('drain', done);
        socket.on('close', done);
      }),
    end: () =>
      new Promise<void>((resolve) => {
        failed = true;
        if (socket.destroyed) return resolve();
        socket.once('close', () => resolve());
        socket.end();
      }),
    destroy: () => {
      failed = true;
      socket.destroy();
    },
  };
}

async function dialUdp(address: string, events: SyslogEvents): Promise<SyslogConnection> {
  const { host, port } = hostPortOf('udp', address);
  let ip: { address: string; family: number };
  try {
    ip = net.isIP(host) ? { address: host, family: net.isIP(host) } : await lookup(host || 'localhost');
  } catch (err) {
    throw dialError('udp', { ...(err as NodeJS.ErrnoException), hostname: host }, address);
  }
  const socket = dgram.createSocket(ip.family === 6 ? 'udp6' : 'udp4');
  await new Promise<void>((resolve, reject) => {
    socket.once('error', (err: NodeJS.ErrnoException) => {
      socket.close();
      reject(dialError('udp', { ...err, address: ip.address, port }, address));
    });
    socket.connect(port, ip.address, () => {
      socket.removeAllListeners('error');
      resolve();
    });
  });
  let inFlight = 0;
  let failed = false;
  let waiting: Array<() => void> = [];
  const settle = () => {
    if (inFlight > 0 && !failed) return;
    for (const w of waiting) w();
    waiting = [];
  };
  socket.on('error', (err) => {
    failed = true;
    events.failed(err, true);
    settle();
  });
  return {
    send: (bytes) => {
      if (failed) return;
      inFlight += bytes.length;
      socket.send(bytes, (err) => {
        inFlight -= bytes.length;
        // nobody listens there (an ICMP error reported on a later send): the socket still works
        if (err) events.failed(err, false);
        else events.sent();
        settle();
      });
    },
    bufferedBytes: () => (failed ? 0 : inFlight),
    drained: () =>
      new Promise<void>((resolve) => {
        waiting.push(resolve);
        settle();
      }),
    end: async () => {
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        settle();
      });
      failed = true;
      socket.close();
    },
    destroy: () => {
      failed = true;
      try {
        socket.close();
      } catch {
        // closed already
      }
    },
  };
}
