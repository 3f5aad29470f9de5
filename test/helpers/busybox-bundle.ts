// An OCI bundle for runtime tests: a root filesystem holding Debian's static busybox, and the
// config.json `runc spec` writes, edited for one command.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const BUSYBOX = '/bin/busybox';
const APPLETS = ['sh', 'echo', 'sleep', 'cat', 'stty'];

export interface BundleOptions {
  args: string[];
  terminal?: boolean;
}

/** Makes the bundle in dir (created if missing) and returns dir. */
export function makeBusyboxBundle(dir: string, opts: BundleOptions): string {
  // ldd exits 1 for a static executable, so its words are the test
  const r = spawnSync('ldd', [BUSYBOX], { encoding: 'utf8' });
  const ldd = `${r.stdout}${r.stderr}`.trim();
  if (!ldd.includes('not a dynamic executable')) throw new Error(`${BUSYBOX} is not static (ldd: ${ldd}); install busybox-static`);
  const bin = path.join(dir, 'rootfs', 'bin');
  mkdirSync(bin, { recursive: true });
  copyFileSync(BUSYBOX, path.join(bin, 'busybox'));
  for (const applet of APPLETS) symlinkSync('busybox', path.join(bin, applet));
  execFileSync('runc', ['spec', '--bundle', dir]);
  const configPath = path.join(dir, 'config.json');
  const config = JSON.parse(readFileSync(configPath, 'utf8')) as {
    process: { args: string[]; terminal: boolean };
    root: { readonly: boolean };
    linux: { namespaces: { type: string }[] };
  };
  config.process.args = opts.args;
  config.process.terminal = opts.terminal ?? false;
  config.root.readonly = false;
  // the host's network is fine for these tests; no namespace to set up
  config.linux.namespaces = config.linux.namespaces.filter((ns) => ns.type !== 'network');
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  return dir;
}
