// POST /volumes/create's body read as dockerd's Go decoder reads volume.VolumeCreateBody: keys
// matched without case, null for unset (kept: inspect shows null where {} was not sent), a value
// of the wrong JSON type a 400 in Go's words.
import { invalidParameter } from '../errors.js';
import { GoFields, isJsonObject, jsonKind } from '../lib/go-json-fields.js';
import type { VolumeCreateRequest } from './volume-service.js';

export function decodeVolumeCreate(body: unknown): VolumeCreateRequest {
  if (body === undefined) throw invalidParameter('got EOF while reading request body');
  if (body === null) body = {};
  if (!isJsonObject(body)) throw invalidParameter(`json: cannot unmarshal ${jsonKind(body)} into Go value of type volume.VolumeCreateBody`);
  const at = new GoFields('VolumeCreateBody', '', body, ['Name', 'Driver', 'DriverOpts', 'Labels']);
  return { name: at.string('Name'), driver: at.string('Driver'), driverOpts: at.stringMap('DriverOpts'), labels: at.stringMap('Labels') };
}
