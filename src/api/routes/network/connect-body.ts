// The bodies of POST /networks/{id}/connect and /disconnect read as dockerd's Go decoder reads
// types.NetworkConnect and types.NetworkDisconnect: keys matched without case, null for unset, a
// value of the wrong JSON type a 400 in Go's words. EndpointConfig goes on as sent, for the
// containers to decode as EndpointSettings.
import { invalidParameter } from '../../../errors.js';
import { matchGoFields } from '../../../lib/go-json-fields.js';
import type { NetworkConnectRequest, NetworkDisconnectRequest } from './connect-backend.js';

export function decodeConnectBody(body: unknown): NetworkConnectRequest {
  const raw = topLevel(body, 'NetworkConnect', ['Container', 'EndpointConfig']);
  const endpointConfig = raw.EndpointConfig ?? null;
  if (endpointConfig !== null && (typeof endpointConfig !== 'object' || Array.isArray(endpointConfig))) {
    throw typeError('NetworkConnect', 'EndpointConfig', endpointConfig, 'network.EndpointSettings');
  }
  return { Container: stringField(raw, 'NetworkConnect', 'Container'), EndpointConfig: endpointConfig };
}

export function decodeDisconnectBody(body: unknown): NetworkDisconnectRequest {
  const raw = topLevel(body, 'NetworkDisconnect', ['Container', 'Force']);
  const force = raw.Force ?? false;
  if (typeof force !== 'boolean') throw typeError('NetworkDisconnect', 'Force', force, 'bool');
  return { Container: stringField(raw, 'NetworkDisconnect', 'Container'), Force: force };
}

function topLevel(body: unknown, goName: string, fields: string[]): Record<string, unknown> {
  if (body === undefined) throw invalidParameter('got EOF while reading request body');
  if (body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw invalidParameter(`json: cannot unmarshal ${jsonKind(body)} into Go value of type types.${goName}`);
  return matchGoFields(body, fields) as Record<string, unknown>;
}

function stringField(raw: Record<string, unknown>, goName: string, name: string): string {
  const v = raw[name] ?? '';
  if (typeof v !== 'string') throw typeError(goName, name, v, 'string');
  return v;
}

function typeError(goName: string, field: string, v: unknown, goType: string): Error {
  return invalidParameter(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${goName}.${field} of type ${goType}`);
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}
