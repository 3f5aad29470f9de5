// The syslog driver's options as dockerd 20.10 reads them (daemon/logger/syslog/syslog.go):
//
//   syslog-address    proto://address, proto one of tcp, tcp+tls, udp, unix, unixgram (a prefix
//                     check, then Go's url.Parse); a host without a port gets 514; a unix or
//                     unixgram path must exist. Empty: the local syslog (/dev/log and the like).
//   syslog-facility   a name (kern ... local7) or a number 0-23; daemon by default
//   syslog-format     "", rfc3164, rfc5424, rfc5424micro
//   syslog-tls-*      the CA, the client certificate and key, skip-verify (present means set)
//
// The same parsing serves create (ValidateLogOpt: its errors are the message as they are) and the
// start (New: "failed to initialize logging driver: " is the caller's).
import { readFileSync, statSync } from 'node:fs';
import { goErrnoText } from '../../lib/go-errno.js';
import { SYSLOG_FORMATS, type SyslogFormat } from './syslog-format.js';

export const SYSLOG_OPTIONS = [
  'env',
  'env-regex',
  'labels',
  'labels-regex',
  'syslog-address',
  'syslog-facility',
  'syslog-tls-ca-cert',
  'syslog-tls-cert',
  'syslog-tls-key',
  'syslog-tls-skip-verify',
  'tag',
  'syslog-format',
] as const;

export type SyslogNetwork = 'udp' | 'tcp' | 'tcp+tls' | 'unix' | 'unixgram' | 'local';

export interface SyslogTarget {
  network: SyslogNetwork;
  /** host:port for udp, tcp and tcp+tls; the path for unix and unixgram; "" for the local syslog */
  address: string;
}

export interface SyslogTls {
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  skipVerify: boolean;
}

export interface SyslogConfig extends SyslogTarget {
  facility: number;
  format: SyslogFormat;
  tls?: SyslogTls;
}

/** A value dockerd refuses, with its message. */
export class SyslogOptionError extends Error {}

const FACILITIES: Readonly<Record<string, number>> = {
  kern: 0,
  user: 1,
  mail: 2,
  daemon: 3,
  auth: 4,
  syslog: 5,
  lpr: 6,
  news: 7,
  uucp: 8,
  cron: 9,
  authpriv: 10,
  ftp: 11,
  local0: 16,
  local1: 17,
  local2: 18,
  local3: 19,
  local4: 20,
  local5: 21,
  local6: 22,
  local7: 23,
};

const TRANSPORT_PREFIXES = ['tcp://', 'tcp+tls://', 'udp://', 'unix://', 'unixgram://'];

/** ValidateLogOpt's checks of the values (the names are checked by the caller). */
export function validateSyslogOptions(opts: Readonly<Record<string, string>>): void {
  parseSyslogAddress(opts['syslog-address']);
  parseSyslogFacility(opts['syslog-facility']);
  parseSyslogFormat(opts['syslog-format']);
}

/**
 * What New reads, in its order: the address, the facility, the format, then the TLS files.
 * `statPath` false leaves a unix socket's path unchecked (a run berthd adopts: it was checked at
 * the start, and a socket that is gone meanwhile is the writer's to report).
 */
export function syslogConfigOf(opts: Readonly<Record<string, string>>, statPath = true): SyslogConfig {
  const target = parseSyslogAddress(opts['syslog-address'], statPath);
  const facility = parseSyslogFacility(opts['syslog-facility']);
  const format = parseSyslogFormat(opts['syslog-format']);
  const config: SyslogConfig = { ...target, facility, format };
  if (target.network === 'tcp+tls') {
    config.tls = {
      caFile: opts['syslog-tls-ca-cert'] || undefined,
      certFile: opts['syslog-tls-cert'] || undefined,
      keyFile: opts['syslog-tls-key'] || undefined,
      skipVerify: 'syslog-tls-skip-verify' in opts,
    };
  }
  return config;
}

/** parseAddress: where the messages go. */
export function parseSyslogAddress(address: string | undefined, statPath = true): SyslogTarget {
  if (!address) return { network: 'local', address: '' };
  if (!TRANSPORT_PREFIXES.some((p) => address.startsWith(p))) throw new SyslogOptionError(`syslog-address should be in form proto://address, got ${address}`);
  const url = parseGoUrl(address);
  const network = url.scheme as SyslogNetwork;
  if (network === 'unix' || network === 'unixgram') {
    try {
      if (statPath) statSync(url.path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new SyslogOptionError(`stat ${url.path}: ${goErrnoText(code) ?? code ?? String(err)}`);
    }
    return { network, address: url.path };
  }
  const split = splitHostPort(url.host);
  if (split === 'missing port in address') return { network, address: `${url.host}:514` };
  if (typeof split === 'string') throw new SyslogOptionError(`address ${url.host}: ${split}`);
  return { network, address: url.host };
}

/** parseFacility: facility << 3. */
export function parseSyslogFacility(facility: string | undefined): number {
  if (!facility) return FACILITIES.daemon << 3;
  if (facility in FACILITIES) return FACILITIES[facility] << 3;
  if (/^[+-]?\d+$/.test(facility)) {
    const n = Number(facility);
    if (n >= 0 && n <= 23) return n << 3;
  }
  throw new SyslogOptionError('invalid syslog facility');
}

export function parseSyslogFormat(format: string | undefined): SyslogFormat {
  const f = format ?? '';
  if (!(SYSLOG_FORMATS as readonly string[]).includes(f)) throw new SyslogOptionError('Invalid syslog format');
  return f as SyslogFormat;
}

/** The TLS files as go-connections' tlsconfig.Client reads them, with its messages. */
export function readSyslogTls(tls: SyslogTls): { ca?: string[]; cert?: Buffer; key?: Buffer } {
  const read = (file: string, fail: (reason: string) => string) => {
    try {
      return readFileSync(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new SyslogOptionError(fail(`open ${file}: ${goErrnoText(code) ?? code ?? String(err)}`));
    }
  };
  const out: { ca?: string[]; cert?: Buffer; key?: Buffer } = {};
  if (!tls.skipVerify && tls.caFile !== undefined) {
    const file = tls.caFile;
    const pem = read(file, (reason) => `could not read CA certificate ${JSON.stringify(file)}: ${reason}`).toString('latin1');
    const certs = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g);
    if (certs === null) throw new SyslogOptionError(`failed to append certificates from PEM file: ${JSON.stringify(file)}`);
    out.ca = certs;
  }
  if (tls.certFile !== undefined || tls.keyFile !== undefined) {
    out.cert = read(tls.certFile ?? '', (reason) => `Could not load X509 key pair: ${reason}`);
    out.key = read(tls.keyFile ?? '', (reason) => `Could not load X509 key pair: ${reason}`);
    if (!out.key.toString('latin1').includes('-----BEGIN')) throw new SyslogOptionError('Could not load X509 key pair: no valid private key found');
  }
  return out;
}

// ---- Go's url.Parse and net.SplitHostPort, as far as a transport URL needs them ----

interface GoUrl {
  scheme: string;
  host: string;
  path: string;
}

/** url.Parse of a URL that starts with scheme://; its errors as `parse "<url>": <reason>`. */
function parseGoUrl(raw: string): GoUrl {
  const fail = (reason: string) => new SyslogOptionError(`parse ${JSON.stringify(raw)}: ${reason}`);
  const hash = raw.indexOf('#');
  const u = hash < 0 ? raw : raw.slice(0, hash);
  if (/[\u0000-\u001f\u007f]/.test(u)) throw fail('net/url: invalid control character in URL');
  const colon = u.indexOf(':');
  const scheme = u.slice(0, colon).toLowerCase();
  let rest = u.slice(colon + 1);
  const q = rest.indexOf('?');
  if (q >= 0) rest = rest.slice(0, q);
  rest = rest.slice(2);
  const slash = rest.indexOf('/');
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  const at = authority.lastIndexOf('@');
  const host = parseGoHost(at < 0 ? authority : authority.slice(at + 1), fail);
  const path = unescapePath(slash < 0 ? '' : rest.slice(slash), fail);
  return { scheme, host, path };
}

function parseGoHost(host: string, fail: (reason: string) => Error): string {
  let colonPort: string | undefined;
  if (host.startsWith('[')) {
    const end = host.lastIndexOf(']');
    if (end < 0) throw fail("missing ']' in host");
    colonPort = host.slice(end + 1);
  } else {
    const i = host.lastIndexOf(':');
    if (i >= 0) colonPort = host.slice(i);
  }
  if (colonPort !== undefined && !/^(:\d*)?$/.test(colonPort)) throw fail(`invalid port ${JSON.stringify(colonPort)} after host`);
  for (let i = 0; i < host.length; i++) {
    const c = host[i];
    if (c === '%') throw fail(`invalid URL escape ${JSON.stringify(host.slice(i, i + 3))}`);
    if (c.charCodeAt(0) < 0x80 && !/[A-Za-z0-9\-_.~!$&'()*+,;=:[\]<>"]/.test(c)) throw fail(`invalid character ${JSON.stringify(c)} in host name`);
  }
  return host;
}

function unescapePath(path: string, fail: (reason: string) => Error): string {
  const bytes: number[] = [];
  for (let i = 0; i < path.length; i++) {
    if (path[i] !== '%') {
      bytes.push(...Buffer.from(path[i], 'utf8'));
      continue;
    }
    const hex = path.slice(i + 1, i + 3);
    if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw fail(`invalid URL escape ${JSON.stringify(path.slice(i, i + 3))}`);
    bytes.push(parseInt(hex, 16));
    i += 2;
  }
  return Buffer.from(bytes).toString('utf8');
}

/** net.SplitHostPort: the host and port, or the reason it fails. */
export function splitHostPort(hostport: string): { host: string; port: string } | string {
  const i = hostport.lastIndexOf(':');
  if (i < 0) return 'missing port in address';
  let host: string;
  let j = 0;
  let k = 0;
  if (hostport.startsWith('[')) {
    const end = hostport.indexOf(']');
    if (end < 0) return "missing ']' in address";
    if (end + 1 === hostport.length) return 'missing port in address';
    if (end + 1 !== i) return hostport[end + 1] === ':' ? 'too many colons in address' : 'missing port in address';
    host = hostport.slice(1, end);
    j = 1;
    k = end + 1;
  } else {
    host = hostport.slice(0, i);
    if (host.includes(':')) return 'too many colons in address';
  }
  if (hostport.slice(j).includes('[')) return "unexpected '[' in address";
  if (hostport.slice(k).includes(']')) return "unexpected ']' in address";
  return { host, port: hostport.slice(i + 1) };
}
