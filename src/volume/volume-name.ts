// The names a volume may have, as dockerd's local driver allows them: one path component, so a
// name can never lead out of the volumes directory or the records'.
import { invalidParameter } from '../errors.js';

const VALID_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]+$/;

export function isVolumeName(name: string): boolean {
  return VALID_NAME.test(name);
}

export function checkVolumeName(name: string): void {
  // Go counts bytes: a one-byte name is too short, "é" has invalid characters
  if (Buffer.byteLength(name) === 1) throw invalidParameter(`create ${name}: volume name is too short, names should be at least two alphanumeric characters`);
  if (!VALID_NAME.test(name)) {
    throw invalidParameter(`create ${name}: "${name}" includes invalid characters for a local volume name, only "[a-zA-Z0-9][a-zA-Z0-9_.-]" are allowed. If you intended to pass a host directory, use absolute path`);
  }
}
