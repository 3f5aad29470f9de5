// A system error as Go's syscall.Errno prints it (glibc's strerror, lower case): what dockerd's
// messages carry after "connect: " or "stat /path: ". libuv's texts are the same but for a few.
import { getSystemErrorMap } from 'node:util';

const GO_TEXT: Readonly<Record<string, string>> = {
  EHOSTUNREACH: 'no route to host',
  EADDRNOTAVAIL: 'cannot assign requested address',
};

let byName: Map<string, string> | undefined;

/** The text of an errno code (ECONNREFUSED → "connection refused"), or undefined for what is not one. */
export function goErrnoText(code: string | undefined): string | undefined {
  if (code === undefined) return undefined;
  if (byName === undefined) {
    byName = new Map();
    for (const [name, message] of getSystemErrorMap().values()) byName.set(name, message);
  }
  return GO_TEXT[code] ?? byName.get(code);
}
