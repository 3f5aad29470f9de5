// buildContainerSpec for real: specs built from Config and HostConfig, run with `runc run` on the
// busybox test image's root filesystem, each effect checked from inside the container. Every
// container, mount, cgroup and folder goes in after(), also when a test fails.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ContainerConfig, HostConfig } from '../../../src/container/config/types.js';
import { buildContainerSpec } from '../../../src/container/spec/build-spec.js';
import { heldCapabilities, KNOWN_CAPABILITIES } from '../../../src/container/spec/capabilities.js';
import { createVolumes } from '../../../src/volume/create-volumes.js';
import { EventBus } from '../../../src/events/event-bus.js';
import { pino } from 'pino';
import type { JoinableContainer } from '../../../src/container/spec/namespaces.js';
import { parseBind } from '../../../src/container/config/validate-mounts.js';
import { resolveMountPoints, type MountPoint } from '../../../src/container/spec/resolve-mounts.js';
import { unmountShm } from '../../../src/container/spec/shm.js';
import { isMountPoint } from '../../../src/runtime/mount-table.js';
import { copyImageContentToVolumes } from '../../../src/container/spec/volume-copy-up.js';
import { Runc } from '../../../src/runtime/runc.js';
import { BUSYBOX_PATH } from '../../helpers/busybox-image.js';
import { RuncFixture } from '../../helpers/runc-fixture.js';

const CGROUP_PARENT = `/berth-test-spec-${process.pid}`;

let fixture: RuncFixture;
let dir: string;
let rootfs: string;
let runc: Runc;
let created: Set<string>;
const shmDirs = new Set<string>();

before(async () => {
  fixture = await RuncFixture.create('berth-spec-', CGROUP_PARENT);
  ({ dir, rootfs, runc, created } = fixture);
});

after(async () => {
  for (const shm of shmDirs) await unmountShm(shm);
  await fixture.cleanUp();
});

interface RunOptions {
  config?: ContainerConfig;
  hostConfig?: HostConfig;
  mountPoints?: MountPoint[];
  lookup?: (idOrName: string) => JoinableContainer | undefined;
  root?: string;
}

/** Config and HostConfig as normalize-create leaves them for `docker run busybox sh -c script`. */
function defaults(id: string, script: string, opts: RunOptions): { config: ContainerConfig; hostConfig: HostConfig } {
  return {
    config: { Hostname: id.slice(0, 12), Env: [BUSYBOX_PATH], Cmd: ['sh', '-c', script], Tty: false, ...opts.config },
    hostConfig: { NetworkMode: 'default', IpcMode: 'private', PidMode: '', UTSMode: '', CgroupnsMode: 'host', ShmSize: 64 * 1024 * 1024, OomKillDisable: false, ...opts.hostConfig },
  };
}

async function build(id: string, script: string, opts: RunOptions = {}) {
  const { config, hostConfig } = defaults(id, script, opts);
  const containerDir = path.join(dir, 'containers', id);
  mkdirSync(containerDir, { recursive: true });
  const shmDir = path.join(containerDir, 'mounts', 'shm');
  shmDirs.add(shmDir);
  const spec = await buildContainerSpec({
    id,
    config,
    hostConfig,
    rootfsPath: opts.root ?? rootfs,
    containerDir,
    shmDir,
    mountPoints: opts.mountPoints ?? [],
    lookup: opts.lookup ?? (() => undefined),
    cgroupParent: CGROUP_PARENT,
  });
  const bundle = path.join(dir, 'bundles', id);
  mkdirSync(bundle, { recursive: true });
  writeFileSync(path.join(bundle, 'config.json'), JSON.stringify(spec));
  return { spec, bundle, containerDir, shmDir };
}

/** Runs `sh -c script` in a container built from opts; its stdout, after checking it exited 0. */
async function run(id: string, script: string, opts: RunOptions = {}): Promise<string> {
  const { bundle } = await build(id, script, opts);
  created.add(id);
  const r = await runc.run(id, bundle, { timeoutMs: 20_000 });
  assert.equal(r.exitCode, 0, `exit ${r.exitCode}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

function capMask(names: readonly string[]): string {
  let mask = 0n;
  for (const n of names) mask |= 1n << BigInt(KNOWN_CAPABILITIES.indexOf(n));
  return mask.toString(16).padStart(16, '0');
}

describe('container spec', () => {
  it('runs as Config.User with GroupAdd, in a WorkingDir it makes, with the daemon environment', async () => {
    const out = await run('user', 'id; pwd; env | sort; stat -c "%u:%g %a" /work/dir', {
      config: { User: 'test', WorkingDir: '/work/dir', Env: [BUSYBOX_PATH, 'FOO=bar'] },
      hostConfig: { GroupAdd: ['nogroup', '4242'] },
    });
    const lines = out.trim().split('\n');
    assert.equal(lines[0], 'uid=1000(test) gid=1000(test) groups=1000(test),4242,65534(nogroup)');
    assert.equal(lines[1], '/work/dir');
    const env = lines.slice(2, -1);
    // HOME comes from runc, out of the image's passwd
    assert.deepEqual(env, ['FOO=bar', 'HOME=/home/test', 'HOSTNAME=user', BUSYBOX_PATH, 'PWD=/work/dir', 'SHLVL=1']);
    assert.equal(lines.at(-1), '0:0 755');
  });

  it('refuses a user the image does not know, in runc words', async () => {
    await assert.rejects(build('nouser', 'true', { config: { User: 'xyz' } }), /^EngineError: unable to find user xyz: no matching entries in passwd file$/);
  });

  it('sets hostname, domainname, /etc/hosts with ExtraHosts, and resolv.conf with Dns', async () => {
    const out = await run('names', 'hostname; cat /proc/sys/kernel/domainname; cat /etc/hostname; cat /etc/hosts; echo --; cat /etc/resolv.conf', {
      config: { Hostname: 'myhost', Domainname: 'example.org' },
      hostConfig: { ExtraHosts: ['foo:1.2.3.4', 'six:::1'], Dns: ['9.9.9.9'], DnsSearch: ['example.com'] },
    });
    assert.equal(
      out,
      [
        'myhost',
        'example.org',
        'myhost',
        '127.0.0.1\tlocalhost',
        '::1\tlocalhost ip6-localhost ip6-loopback',
        'fe00::0\tip6-localnet',
        'ff00::0\tip6-mcastprefix',
        'ff02::1\tip6-allnodes',
        'ff02::2\tip6-allrouters',
        '1.2.3.4\tfoo',
        '::1\tsix',
        '--',
        'search example.com',
        'nameserver 9.9.9.9',
        '',
      ].join('\n'),
    );
  });

  it('gives CapAdd and takes CapDrop; privileged gets the daemon\'s capabilities and the host\'s devices', async () => {
    const caps = await run('caps', 'grep CapEff /proc/self/status', { hostConfig: { CapAdd: ['net_admin'], CapDrop: ['CAP_CHOWN', 'MKNOD'] } });
    const expected = ['CAP_DAC_OVERRIDE', 'CAP_FSETID', 'CAP_FOWNER', 'CAP_NET_RAW', 'CAP_SETGID', 'CAP_SETUID', 'CAP_SETFCAP', 'CAP_SETPCAP', 'CAP_NET_BIND_SERVICE', 'CAP_SYS_CHROOT', 'CAP_KILL', 'CAP_AUDIT_WRITE', 'CAP_NET_ADMIN'];
    assert.equal(caps.trim(), `CapEff:\t${capMask(expected)}`);

    const hostDevices = readdirSync('/dev').filter((n) => statSync(path.join('/dev', n)).isCharacterDevice() && n !== 'console' && n !== 'ptmx');
    const out = await run('privileged', 'grep CapEff /proc/self/status; ls /dev; mount | grep " /sys "', { hostConfig: { Privileged: true } });
    const lines = out.trim().split('\n');
    assert.equal(lines[0], `CapEff:\t${capMask(heldCapabilities())}`);
    for (const d of hostDevices) assert.ok(lines.includes(d), `${d} missing from the privileged container's /dev`);
    assert.match(lines.at(-1) ?? '', /\(rw,/);
  });

  it('keeps the root filesystem read-only, with writable tmpfs and a read-only bind', async () => {
    const src = path.join(dir, 'bind-src');
    mkdirSync(src);
    writeFileSync(path.join(src, 'file'), 'from the host\n');
    const mountPoints = await resolveMountPoints({
      config: {},
      hostConfig: { Tmpfs: { '/run': 'size=1m,mode=700' } },
      mounts: [parseBind(`${src}:/mnt/src:ro`)],
      volumes: await volumeArea(dir),
      containers: () => undefined,
    });
    const script = 'touch /x 2>&1; touch /etc/hosts 2>&1; cat /mnt/src/file; touch /mnt/src/y 2>&1; touch /run/ok && echo run ok; mount | grep " /run "';
    const out = await run('readonly', script, { hostConfig: { ReadonlyRootfs: true, Tmpfs: { '/run': 'size=1m,mode=700' } }, mountPoints });
    const lines = out.trim().split('\n');
    assert.match(lines[0], /touch: \/x: Read-only file system/);
    assert.match(lines[1], /touch: \/etc\/hosts: Read-only file system/);
    assert.equal(lines[2], 'from the host');
    assert.match(lines[3], /touch: \/mnt\/src\/y: Read-only file system/);
    assert.equal(lines[4], 'run ok');
    assert.match(lines[5], /^tmpfs on \/run type tmpfs \(rw,nosuid,nodev,noexec,relatime,size=1024k,mode=700\)$/);
  });

  it('applies Ulimits, memory and pids limits, and sysctls', async () => {
    const out = await run('limits', 'ulimit -Sn; ulimit -Hn; cat /sys/fs/cgroup/memory/memory.limit_in_bytes; cat /sys/fs/cgroup/pids/pids.max; cat /proc/sys/kernel/shm_rmid_forced; cat /proc/sys/net/ipv4/ping_group_range', {
      hostConfig: { Ulimits: [{ Name: 'nofile', Soft: 1024, Hard: 2048 }], Memory: 64 * 1024 * 1024, PidsLimit: 50, Sysctls: { 'kernel.shm_rmid_forced': '1' } },
    });
    assert.deepEqual(out.trim().split('\n').map((l) => l.trim()), ['1024', '2048', String(64 * 1024 * 1024), '50', '1', '0\t2147483647']);
  });

  it("blocks with Docker's seccomp profile what unconfined allows", async () => {
    // a user namespace needs no capability, only the profile stands in the way
    const blocked = await run('seccomp', 'unshare -U true 2>&1; echo rc=$?');
    assert.match(blocked, /Operation not permitted\nrc=1/);
    const allowed = await run('unconfined', 'unshare -U true 2>&1; echo rc=$?', { hostConfig: { SecurityOpt: ['seccomp=unconfined'] } });
    assert.equal(allowed, 'rc=0\n');
  });

  it('runs catatonit as pid 1 with Init, and sizes /dev/shm with ShmSize', async () => {
    const out = await run('init', 'tr "\\0" " " </proc/1/cmdline; echo; mount | grep " /dev/shm "', { hostConfig: { Init: true, ShmSize: 32 * 1024 * 1024 } });
    const lines = out.trim().split('\n');
    assert.match(lines[0], /^\/sbin\/docker-init -- sh -c /);
    assert.match(lines[1], /^shm on \/dev\/shm type tmpfs \(rw,nosuid,nodev,noexec,relatime,size=32768k\)$/);
  });

  it('shares a shareable /dev/shm through a mount in the container directory', async () => {
    const { shmDir } = await build('shareable', 'true', { hostConfig: { IpcMode: 'shareable', ShmSize: 8 * 1024 * 1024 } });
    assert.ok(isMountPoint(shmDir));
    const out = await run('shareable-run', 'mount | grep " /dev/shm "', { hostConfig: { IpcMode: 'shareable', ShmSize: 8 * 1024 * 1024 } });
    assert.match(out, /^shm on \/dev\/shm type tmpfs \(rw,nosuid,nodev,noexec,relatime,size=8192k\)/);
  });

  it("copies the image's content into a new volume", async () => {
    const volumes = await volumeArea(dir);
    const mountPoints = await resolveMountPoints({ config: { Volumes: { '/etc': {} } }, hostConfig: {}, mounts: [], volumes, containers: () => undefined });
    assert.equal(mountPoints.length, 1);
    await copyImageContentToVolumes(rootfs, mountPoints, volumes);
    assert.equal(readFileSync(path.join(mountPoints[0].Source, 'passwd'), 'utf8'), readFileSync(path.join(rootfs, 'etc/passwd'), 'utf8'));
    const out = await run('volume', 'grep test /etc/passwd; mount | grep -c " /etc "', { mountPoints });
    assert.equal(out, 'test:x:1000:1000::/home/test:/bin/sh\n1\n');
  });

  it("has only loopback in its own network, and joins a running container's network and pid namespaces", async () => {
    const own = await run('loopback', 'tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " "');
    assert.equal(own, 'lo\n');

    const donor = await build('donor', 'sleep 1000');
    created.add('donor');
    await runc.create('donor', donor.bundle, { pidFile: path.join(dir, 'donor.pid') });
    await runc.start('donor');
    const { pid } = await runc.state('donor');
    const lookup = (idOrName: string): JoinableContainer | undefined => (idOrName === 'donor' ? { id: 'donor', pid, running: true, dir: donor.containerDir } : undefined);
    const out = await run('joiner', 'readlink /proc/self/ns/net; readlink /proc/self/ns/pid; ps -o comm | grep -c sleep; hostname', {
      hostConfig: { NetworkMode: 'container:donor', PidMode: 'container:donor' },
      lookup,
    });
    // and the donor's hostname, as dockerd's initializeNetworking gives it
    assert.deepEqual(out.trim().split('\n'), [readlinkSync(`/proc/${pid}/ns/net`), readlinkSync(`/proc/${pid}/ns/pid`), '1', 'donor']);
    await assert.rejects(build('late', 'true', { hostConfig: { NetworkMode: 'container:donor' }, lookup: () => ({ id: 'donor', pid: 0, running: false }) }), {
      kind: 'conflict',
      message: 'cannot join network of a non running container: donor',
    });
    await runc.delete('donor', { force: true });
  });
});

/** The real volume area over a scratch data root, with no container using anything. */
async function volumeArea(dataRoot: string) {
  const area = await createVolumes({ dataRoot, events: new EventBus(), log: pino({ level: 'silent' }), users: () => [], pluginsDir: path.join(dataRoot, 'plugins') });
  return area.containers;
}
