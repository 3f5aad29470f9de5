// Everything berth needs on a fresh Debian 12 machine (as root, with Node 20): Debian packages,
// npm dependencies and the build. Idempotent and quick when nothing changed.
//   node scripts/setup.mjs              what the daemon needs (npm start)
//   node scripts/setup.mjs --for-tests  and what the tests and benchmarks need (npm test, npm run bench)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const forTests = process.argv.includes('--for-tests');

/** Commands berth runs, and the Debian package that brings each. */
const runtimePackages = [
  // setfattr and getfattr: image layers' xattrs and overlay whiteouts (src/image/archive/layer-applier.ts)
  { command: 'setfattr', pkg: 'attr' },
  // zstd-compressed image layers (src/image/archive/layer-compression.ts)
  { command: 'zstd', pkg: 'zstd' },
  // bzip2- and xz-compressed build contexts and ADD archives (src/build/context/archive-compression.ts)
  { command: 'bzip2', pkg: 'bzip2' },
  { command: 'xz', pkg: 'xz-utils' },
  // build contexts from git repositories (src/build/context/git-context.ts)
  { command: 'git', pkg: 'git' },
  // the OCI runtime that runs containers (src/runtime/runc.ts)
  { command: 'runc', pkg: 'runc' },
  // each container's monitor: holds its stdio, writes its log and exit code (src/runtime/conmon.ts)
  { command: 'conmon', pkg: 'conmon' },
  // the init process of `docker run --init`, bind-mounted into the container as pid 1
  { command: 'catatonit', pkg: 'catatonit' },
  // the stdin relay into conmon's SOCK_SEQPACKET attach socket, which node:net cannot open (src/runtime/stdin-relay.ts)
  { command: 'socat', pkg: 'socat' },
  // `docker top` runs the host's ps, which a minimal Debian lacks (src/runtime/host-ps.ts)
  { command: 'ps', pkg: 'procps' },
  // the standard CNI plugins (bridge, static, portmap, loopback...) that plumb container networks
  // (src/runtime/cni.ts); checked by package, since they live in /usr/lib/cni, off PATH
  { pkg: 'containernetworking-plugins' },
  // berth's own firewall chains (src/runtime/iptables.ts); the bridge and portmap plugins run it too
  { command: 'iptables', pkg: 'iptables' },
  // `ip link set lo up` in each new network namespace (src/runtime/netns.ts)
  { command: 'ip', pkg: 'iproute2' },
  // the build generates TypeScript from proto/ with it (scripts/build.mjs); the tests use it as
  // the independent oracle for berth's protobuf codecs (test/helpers/protoc.ts)
  { command: 'protoc', pkg: 'protobuf-compiler' },
  // the swarm's CA: its root, nodes' certificate requests and certificates (src/runtime/openssl.ts)
  { command: 'openssl', pkg: 'openssl' },
  // etcd 3.4, the cluster store of a swarm with several managers: each manager runs a member of its
  // own (src/runtime/etcd-member.ts); the package's own service is never started (see
  // installDebianPackages)
  { command: 'etcd', pkg: 'etcd-server' },
];
const testPackages = [
  // the docker CLI, when the machine has none; its daemon is never started (see installDebianPackages)
  { command: 'docker', pkg: 'docker.io' },
  // the static /bin/busybox the tests' offline busybox image is made of (test/helpers/busybox-image.ts);
  // checked by package, since Debian's dynamic busybox provides the same command
  { pkg: 'busybox-static' },
  // docker-compose 1.29 (Debian's), driven by the networking tests as its users drive it
  { command: 'docker-compose', pkg: 'docker-compose' },
  // the CNCF distribution registry (2.8) the pull, push and login tests run on loopback
  // (test/helpers/registry.ts); its service is never started (see installDebianPackages)
  { command: 'docker-registry', pkg: 'docker-registry' },
  // systemd-journald and journalctl: the journald log driver's tests run a journald of their own
  // (test/helpers/test-journal.ts); berth reads a host's journal with journalctl (src/runtime/journal.ts),
  // which a host that runs journald has
  { command: 'journalctl', pkg: 'systemd' },
  // the Prometheus project's text-format parser (its Python client), which reads berthd's /metrics
  // in the tests (test/helpers/prometheus-text.ts)
  { pkg: 'python3-prometheus-client' },
];

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed with ${r.status ?? r.signal}`);
}

function hasCommand(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

function hasPackage(pkg) {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() === 'install ok installed';
}

/** An entry is there when its command is (any package may provide it), or else its package is installed. */
function present(wanted) {
  return wanted.command !== undefined ? hasCommand(wanted.command) : hasPackage(wanted.pkg);
}

function installDebianPackages(wanted) {
  const missing = [...new Set(wanted.filter((w) => !present(w)).map((w) => w.pkg))];
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) throw new Error(`berth needs these Debian packages: ${missing.join(' ')}; install them as root`);
  console.log(`setup: installing Debian packages: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Keep package scripts from starting services (docker.io would start its own daemon otherwise,
  // docker-registry its registry on port 5000, etcd-server an etcd on port 2379).
  const policy = '/usr/sbin/policy-rc.d';
  const hadPolicy = existsSync(policy);
  if (!hadPolicy) writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  try {
    run('apt-get', ['update', '-qq'], { env });
    run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { env });
  } finally {
    if (!hadPolicy) rmSync(policy, { force: true });
  }
}

function installNpmDependencies() {
  // TypeScript builds the daemon, so dev dependencies are needed for npm start as well
  const want = createHash('sha256').update(readFileSync(new URL('../package-lock.json', import.meta.url))).digest('hex');
  const stamp = new URL('../node_modules/.berth-setup', import.meta.url);
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === want) return;
  console.log('setup: installing npm dependencies');
  run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error']);
  writeFileSync(stamp, want);
}

function build() {
  run(process.execPath, ['scripts/build.mjs']);
}

try {
  installDebianPackages(forTests ? [...runtimePackages, ...testPackages] : runtimePackages);
  installNpmDependencies();
  build();
} catch (err) {
  console.error(`setup: ${err.message}`);
  process.exit(1);
}
