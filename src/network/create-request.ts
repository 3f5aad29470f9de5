// POST /networks/create's body read as dockerd's Go decoder reads types.NetworkCreateRequest:
// keys matched without case (a later one wins), null leaves a field unset, unknown keys are
// ignored, and a value of the wrong JSON type is a 400 in Go's words.
import { invalidParameter } from '../errors.js';
import { matchGoFields } from '../lib/go-json-fields.js';

export interface IpamConfigRequest {
  subnet: string;
  ipRange: string;
  gateway: string;
  auxAddresses: Record<string, string> | null;
}

export interface NetworkCreateRequest {
  name: string;
  checkDuplicate: boolean;
  driver: string;
  scope: string;
  enableIPv6: boolean;
  ipam: { driver: string; config: IpamConfigRequest[]; options: Record<string, string> | null } | null;
  internal: boolean;
  attachable: boolean;
  ingress: boolean;
  configOnly: boolean;
  configFrom: string | null;
  options: Record<string, string> | null;
  labels: Record<string, string> | null;
}

type Raw = Record<string, unknown>;

export function decodeNetworkCreate(body: unknown): NetworkCreateRequest {
  if (body === undefined) throw invalidParameter('got EOF while reading request body');
  if (body === null) body = {};
  if (!isObject(body)) throw invalidParameter(`json: cannot unmarshal ${jsonKind(body)} into Go value of type types.NetworkCreateRequest`);
  const at = new Fields('NetworkCreateRequest', '', body, [
    'Name', 'CheckDuplicate', 'Driver', 'Scope', 'EnableIPv6', 'IPAM', 'Internal', 'Attachable', 'Ingress', 'ConfigOnly', 'ConfigFrom', 'Options', 'Labels',
  ]);
  const ipam = at.object('IPAM', 'network.IPAM');
  const configFrom = at.object('ConfigFrom', 'network.ConfigReference');
  return {
    name: at.string('Name'),
    checkDuplicate: at.bool('CheckDuplicate'),
    driver: at.string('Driver'),
    scope: at.string('Scope'),
    enableIPv6: at.bool('EnableIPv6'),
    ipam: ipam === null ? null : decodeIpam(ipam),
    internal: at.bool('Internal'),
    attachable: at.bool('Attachable'),
    ingress: at.bool('Ingress'),
    configOnly: at.bool('ConfigOnly'),
    configFrom: configFrom === null ? null : new Fields('ConfigReference', 'ConfigFrom', configFrom, ['Network']).string('Network'),
    options: at.stringMap('Options'),
    labels: at.stringMap('Labels'),
  };
}

function decodeIpam(raw: Raw): NonNullable<NetworkCreateRequest['ipam']> {
  const at = new Fields('IPAM', 'IPAM', raw, ['Driver', 'Config', 'Options']);
  const config = at.list('Config', 'network.IPAMConfig').map((entry) => {
    const c = new Fields('IPAMConfig', 'IPAM.Config', entry, ['Subnet', 'IPRange', 'Gateway', 'AuxiliaryAddresses']);
    return { subnet: c.string('Subnet'), ipRange: c.string('IPRange'), gateway: c.string('Gateway'), auxAddresses: c.stringMap('AuxiliaryAddresses') };
  });
  return { driver: at.string('Driver'), config, options: at.stringMap('Options') };
}

/** One Go struct's fields in a JSON object; errors name the struct and the field's path from the body's root, as Go does. */
class Fields {
  private readonly raw: Raw;

  constructor(
    private readonly goName: string,
    private readonly path: string,
    raw: Raw,
    names: string[],
  ) {
    this.raw = matchGoFields(raw, names) as Raw;
  }

  string(name: string): string {
    const v = this.raw[name];
    if (v === undefined || v === null) return '';
    if (typeof v !== 'string') throw this.typeError(name, v, 'string');
    return v;
  }

  bool(name: string): boolean {
    const v = this.raw[name];
    if (v === undefined || v === null) return false;
    if (typeof v !== 'boolean') throw this.typeError(name, v, 'bool');
    return v;
  }

  object(name: string, goType: string): Raw | null {
    const v = this.raw[name];
    if (v === undefined || v === null) return null;
    if (!isObject(v)) throw this.typeError(name, v, goType);
    return v;
  }

  /** A list of structs: a null entry is an empty struct. */
  list(name: string, goType: string): Raw[] {
    const v = this.raw[name];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) throw this.typeError(name, v, `[]${goType}`);
    return v.map((entry: unknown) => {
      if (entry === null) return {};
      if (!isObject(entry)) throw this.typeError(name, entry, goType);
      return entry;
    });
  }

  stringMap(name: string): Record<string, string> | null {
    const v = this.raw[name];
    if (v === undefined || v === null) return null;
    if (!isObject(v)) throw this.typeError(name, v, 'map[string]string');
    const out: Record<string, string> = {};
    for (const [k, x] of Object.entries(v)) {
      if (x !== null && typeof x !== 'string') throw this.typeError(name, x, 'string');
      out[k] = x ?? '';
    }
    return out;
  }

  private typeError(name: string, v: unknown, goType: string): Error {
    const field = this.path === '' ? name : `${this.path}.${name}`;
    return invalidParameter(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${this.goName}.${field} of type ${goType}`);
  }
}

function isObject(v: unknown): v is Raw {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v; // string, number, object
}
