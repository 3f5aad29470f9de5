// The `platform` parameter: os[/arch[/variant]], defaulting to the daemon's own. berth runs Linux
// containers on its own architecture only, so anything else is refused.
import { invalidParameter } from '../errors.js';
import { goArch } from '../lib/go-arch.js';

export interface Platform {
  os: string;
  architecture: string;
  variant?: string;
}

export function hostPlatform(): Platform {
  return { os: 'linux', architecture: goArch() };
}

export function parsePlatform(text: string): Platform {
  const host = hostPlatform();
  if (text.trim() === '') return host;
  const [os, architecture = host.architecture, variant] = text.trim().toLowerCase().split('/');
  if (os !== 'linux') throw invalidParameter(`"${text}": operating system is not supported`);
  if (architecture !== host.architecture && !(architecture === 'x86_64' && host.architecture === 'amd64')) {
    throw invalidParameter(`"${text}": berth runs ${host.os}/${host.architecture} images only`);
  }
  return { os, architecture: host.architecture, ...(variant ? { variant } : {}) };
}
