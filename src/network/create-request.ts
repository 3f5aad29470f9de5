// POST /networks/create's body read as dockerd's Go decoder reads types.NetworkCreateRequest:
// keys matched without case (a later one wins), null leaves a field unset, unknown keys are
// ignored, and a value of the wrong JSON type is a 400 in Go's words.
import { invalidParameter } from '../errors.js';
import { GoFields, isJsonObject, jsonKind } from '../lib/go-json-fields.js';

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

export function decodeNetworkCreate(body: unknown): NetworkCreateRequest {
  if (body === undefined) throw invalidParameter('got EOF while reading request body');
  if (body === null) body = {};
  if (!isJsonObject(body)) throw invalidParameter(`json: cannot unmarshal ${jsonKind(body)} into Go value of type types.NetworkCreateRequest`);
  const at = new GoFields('NetworkCreateRequest', '', body, [
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
    configFrom: configFrom === null ? null : new GoFields('ConfigReference', 'ConfigFrom', configFrom, ['Network']).string('Network'),
    options: at.stringMap('Options'),
    labels: at.stringMap('Labels'),
  };
}

function decodeIpam(raw: Record<string, unknown>): NonNullable<NetworkCreateRequest['ipam']> {
  const at = new GoFields('IPAM', 'IPAM', raw, ['Driver', 'Config', 'Options']);
  const config = at.list('Config', 'network.IPAMConfig').map((entry) => {
    const c = new GoFields('IPAMConfig', 'IPAM.Config', entry, ['Subnet', 'IPRange', 'Gateway', 'AuxiliaryAddresses']);
    return { subnet: c.string('Subnet'), ipRange: c.string('IPRange'), gateway: c.string('Gateway'), auxAddresses: c.stringMap('AuxiliaryAddresses') };
  });
  return { driver: at.string('Driver'), config, options: at.stringMap('Options') };
}
