// Container names as dockerd accepts them (daemon/names.go): one leading '/' is optional and is
// added when missing, as names are stored and shown with it.
import { invalidParameter } from '../../errors.js';

const validNameChars = '[a-zA-Z0-9][a-zA-Z0-9_.-]';
const validName = new RegExp(`^/?${validNameChars}+$`);

/** Returns the name with its leading '/'; throws dockerd's message for a name it refuses. */
export function validateContainerName(name: string): string {
  if (!validName.test(name)) {
    throw invalidParameter(`Invalid container name (${name}), only ${validNameChars} are allowed`);
  }
  return name.startsWith('/') ? name : `/${name}`;
}
