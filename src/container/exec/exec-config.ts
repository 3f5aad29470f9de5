// The body of POST /containers/{id}/exec, decoded as dockerd's Go decoder reads types.ExecConfig
// (keys matched without case), and checked as dockerd checks it before creating the instance.
import { invalidParameter } from '../../errors.js';
import { matchGoFields } from '../../lib/go-json-fields.js';
import { parseDetachKeys } from '../attach/detach-keys.js';
import { decodeGoStruct } from '../config/create-body.js';
import type { ExecConfig } from './exec-instance.js';

const execConfigFields = {
  User: 'string',
  Privileged: 'bool',
  Tty: 'bool',
  ConsoleSize: { pair: 'uint' },
  AttachStdin: 'bool',
  AttachStderr: 'bool',
  AttachStdout: 'bool',
  Detach: 'bool',
  DetachKeys: 'string',
  Env: { list: 'string' },
  WorkingDir: 'string',
  Cmd: { list: 'string' },
} as const;

interface ExecConfigBody {
  User?: string;
  Privileged?: boolean;
  Tty?: boolean;
  ConsoleSize?: [number, number] | null;
  AttachStdin?: boolean;
  AttachStderr?: boolean;
  AttachStdout?: boolean;
  DetachKeys?: string;
  Env?: string[] | null;
  WorkingDir?: string;
  Cmd?: string[] | null;
}

export function decodeExecConfig(body: unknown): ExecConfig {
  const b = decodeGoStruct(matchGoFields(body, Object.keys(execConfigFields)), 'types.ExecConfig', execConfigFields) as ExecConfigBody;
  if (!b.Cmd || b.Cmd.length === 0) throw invalidParameter('No exec command specified');
  let detachKeys: Buffer | undefined;
  if (b.DetachKeys) {
    try {
      detachKeys = parseDetachKeys(b.DetachKeys);
    } catch {
      // dockerd's words for exec (a 500 there; a 400 here, as for any bad input)
      throw invalidParameter(`Invalid escape keys (${b.DetachKeys}) provided`);
    }
  }
  const size = b.ConsoleSize;
  return {
    cmd: b.Cmd,
    env: b.Env ?? [],
    user: b.User ?? '',
    workingDir: b.WorkingDir ?? '',
    privileged: b.Privileged ?? false,
    tty: b.Tty ?? false,
    attachStdin: b.AttachStdin ?? false,
    attachStdout: b.AttachStdout ?? false,
    attachStderr: b.AttachStderr ?? false,
    detachKeys,
    consoleSize: size && size[0] > 0 && size[1] > 0 ? [size[0], size[1]] : undefined,
  };
}
