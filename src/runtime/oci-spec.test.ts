import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_CAPABILITIES, ociSpec, type ContainerSpecInput } from './oci-spec.js';

const base: ContainerSpecInput = {
  args: ['sh', '-c', 'exit 3'],
  env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'HOSTNAME=abc'],
  cwd: '/',
  user: { uid: 0, gid: 0 },
  hostname: 'abc',
  rootfsPath: '/var/lib/berth/rootfs/abc/merged',
  cgroupsPath: '/berth/abc',
};

const DOCKER_CAPS = [
  'CAP_CHOWN', 'CAP_DAC_OVERRIDE', 'CAP_FSETID', 'CAP_FOWNER', 'CAP_MKNOD', 'CAP_NET_RAW', 'CAP_SETGID',
  'CAP_SETUID', 'CAP_SETFCAP', 'CAP_SETPCAP', 'CAP_NET_BIND_SERVICE', 'CAP_SYS_CHROOT', 'CAP_KILL', 'CAP_AUDIT_WRITE',
];

describe('ociSpec', () => {
  it("has Docker 20.10's process defaults", () => {
    const s = ociSpec(base);
    assert.equal(s.ociVersion, '1.0.2-dev');
    assert.deepEqual(s.process, {
      terminal: false,
      user: { uid: 0, gid: 0 },
      args: ['sh', '-c', 'exit 3'],
      env: base.env,
      cwd: '/',
      capabilities: { bounding: DOCKER_CAPS, effective: DOCKER_CAPS, inheritable: [], permitted: DOCKER_CAPS },
      noNewPrivileges: false,
    });
    assert.deepEqual(DEFAULT_CAPABILITIES, DOCKER_CAPS);
    // no rlimits: the daemon's are inherited; no oom_score_adj: the daemon's is kept
    assert.equal('rlimits' in s.process, false);
    assert.equal('oomScoreAdj' in s.process, false);
    assert.deepEqual(s.root, { path: base.rootfsPath, readonly: false });
    assert.equal(s.hostname, 'abc');
    assert.equal(s.linux.cgroupsPath, '/berth/abc');
  });

  it("has Docker's mounts, with a 64 MB /dev/shm", () => {
    const s = ociSpec(base);
    assert.deepEqual(
      s.mounts.map((m) => [m.destination, m.type, m.source, (m.options ?? []).join(',')]),
      [
        ['/proc', 'proc', 'proc', 'rw,nosuid,noexec,nodev'],
        ['/dev', 'tmpfs', 'tmpfs', 'rw,nosuid,strictatime,mode=755,size=65536k'],
        ['/dev/pts', 'devpts', 'devpts', 'rw,nosuid,noexec,newinstance,ptmxmode=0666,mode=0620,gid=5'],
        ['/sys', 'sysfs', 'sysfs', 'ro,nosuid,noexec,nodev'],
        ['/sys/fs/cgroup', 'cgroup', 'cgroup', 'ro,nosuid,noexec,nodev'],
        ['/dev/mqueue', 'mqueue', 'mqueue', 'rw,nosuid,noexec,nodev'],
        ['/dev/shm', 'tmpfs', 'shm', 'rw,nosuid,noexec,nodev,mode=1777,size=67108864'],
      ],
    );
  });

  it("has Docker's masked and read-only paths, namespaces and device rules", () => {
    const s = ociSpec(base);
    assert.deepEqual(s.linux.maskedPaths, [
      '/proc/asound', '/proc/acpi', '/proc/kcore', '/proc/keys', '/proc/latency_stats', '/proc/timer_list',
      '/proc/timer_stats', '/proc/sched_debug', '/proc/scsi', '/sys/firmware',
    ]);
    assert.deepEqual(s.linux.readonlyPaths, ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger']);
    assert.deepEqual(s.linux.namespaces, [{ type: 'mount' }, { type: 'network' }, { type: 'uts' }, { type: 'pid' }, { type: 'ipc' }]);
    assert.deepEqual(s.linux.devices, []);
    assert.deepEqual(s.linux.resources.devices, [
      { allow: false, access: 'rwm' },
      { allow: true, type: 'c', major: 1, minor: 5, access: 'rwm' },
      { allow: true, type: 'c', major: 1, minor: 3, access: 'rwm' },
      { allow: true, type: 'c', major: 1, minor: 9, access: 'rwm' },
      { allow: true, type: 'c', major: 1, minor: 8, access: 'rwm' },
      { allow: true, type: 'c', major: 5, minor: 0, access: 'rwm' },
      { allow: true, type: 'c', major: 5, minor: 1, access: 'rwm' },
      { allow: false, type: 'c', major: 10, minor: 229, access: 'rwm' },
    ]);
    assert.equal('sysctl' in s.linux, false);
    assert.equal('seccomp' in s.linux, false);
  });

  it('joins a network namespace by path, shares host namespaces and adds a cgroup namespace', () => {
    const s = ociSpec({ ...base, namespaces: { network: { path: '/run/berth/netns/abc' }, pid: 'host', uts: 'host', cgroup: 'private' } });
    assert.deepEqual(s.linux.namespaces, [{ type: 'mount' }, { type: 'network', path: '/run/berth/netns/abc' }, { type: 'ipc' }, { type: 'cgroup' }]);
    // runc refuses a hostname in the host's UTS namespace
    assert.equal(s.hostname, undefined);
  });

  it("binds the host's /dev/shm and /dev/mqueue with IPC host, and a shared /dev/shm by path", () => {
    const host = ociSpec({ ...base, namespaces: { ipc: 'host' } });
    assert.deepEqual(host.mounts.filter((m) => m.destination.match(/^\/dev\/(shm|mqueue)$/)).map((m) => [m.type, m.source]), [['bind', '/dev/mqueue'], ['bind', '/dev/shm']]);
    assert.ok(!host.linux.namespaces.some((n) => n.type === 'ipc'));
    const shared = ociSpec({ ...base, shm: { hostPath: '/var/lib/berth/containers/abc/shm' } });
    assert.deepEqual(shared.mounts.find((m) => m.destination === '/dev/shm'), { destination: '/dev/shm', type: 'bind', source: '/var/lib/berth/containers/abc/shm', options: ['rbind', 'rprivate'] });
    const small = ociSpec({ ...base, shm: { sizeBytes: 1048576 } });
    assert.ok(small.mounts.find((m) => m.destination === '/dev/shm')?.options?.includes('size=1048576'));
  });

  it("lets the container's mounts replace defaults, a /dev mount replacing everything under /dev", () => {
    const s = ociSpec({ ...base, mounts: [{ destination: '/dev/shm/', type: 'bind', source: '/tmp/x', options: ['rbind'] }, { destination: '/data', type: 'tmpfs', source: 'tmpfs' }] });
    assert.deepEqual(s.mounts.filter((m) => m.destination.startsWith('/dev/shm')).map((m) => m.source), ['/tmp/x']);
    assert.equal(s.mounts.at(-1)?.destination, '/data');
    const dev = ociSpec({ ...base, mounts: [{ destination: '/dev', type: 'bind', source: '/dev', options: ['rbind'] }] });
    assert.deepEqual(dev.mounts.map((m) => m.destination), ['/proc', '/sys', '/sys/fs/cgroup', '/dev']);
  });

  it('carries the user, terminal, limits and what the caller sets', () => {
    const s = ociSpec({
      ...base,
      user: { uid: 1000, gid: 1000, additionalGids: [10, 20] },
      terminal: true,
      consoleSize: { height: 40, width: 120 },
      readonlyRootfs: true,
      capabilities: ['CAP_KILL'],
      noNewPrivileges: true,
      rlimits: [{ type: 'RLIMIT_NOFILE', soft: 1024, hard: 2048 }],
      oomScoreAdj: 500,
      sysctl: { 'net.ipv4.ip_forward': '1' },
      devices: [{ path: '/dev/fuse', type: 'c', major: 10, minor: 229, fileMode: 0o666, uid: 0, gid: 0 }],
      deviceCgroupRules: [{ allow: true, type: 'c', major: 10, minor: 229, access: 'rwm' }],
      resources: { pids: { limit: 100 } },
      maskedPaths: [],
    });
    assert.deepEqual(s.process.user, { uid: 1000, gid: 1000, additionalGids: [10, 20] });
    assert.deepEqual(s.process.consoleSize, { height: 40, width: 120 });
    assert.equal(s.root.readonly, true);
    assert.deepEqual(s.process.capabilities, { bounding: ['CAP_KILL'], effective: ['CAP_KILL'], inheritable: [], permitted: ['CAP_KILL'] });
    assert.equal(s.process.noNewPrivileges, true);
    assert.deepEqual(s.process.rlimits, [{ type: 'RLIMIT_NOFILE', soft: 1024, hard: 2048 }]);
    assert.equal(s.process.oomScoreAdj, 500);
    assert.deepEqual(s.linux.sysctl, { 'net.ipv4.ip_forward': '1' });
    assert.equal(s.linux.devices.length, 1);
    assert.deepEqual(s.linux.resources.devices.at(-1), { allow: true, type: 'c', major: 10, minor: 229, access: 'rwm' });
    assert.deepEqual(s.linux.resources.pids, { limit: 100 });
    assert.deepEqual(s.linux.maskedPaths, []);
    // a console size without a terminal is dropped
    assert.equal('consoleSize' in ociSpec({ ...base, consoleSize: { height: 1, width: 1 } }).process, false);
  });

  it('opens /sys and the cgroups, allows every device and masks nothing for a privileged container', () => {
    const s = ociSpec({ ...base, privileged: true, rootfsPropagation: 'rslave' });
    const options = (d: string) => s.mounts.find((m) => m.destination === d)?.options;
    assert.deepEqual(options('/sys'), ['rw', 'nosuid', 'noexec', 'nodev']);
    assert.deepEqual(options('/sys/fs/cgroup'), ['rw', 'nosuid', 'noexec', 'nodev']);
    assert.deepEqual(s.linux.resources.devices, [{ allow: true, access: 'rwm' }]);
    assert.deepEqual([s.linux.maskedPaths, s.linux.readonlyPaths], [[], []]);
    assert.equal(s.linux.rootfsPropagation, 'rslave');
  });

  it('has no /dev/shm for IpcMode none', () => {
    assert.equal(ociSpec({ ...base, shm: 'none' }).mounts.some((m) => m.destination === '/dev/shm'), false);
  });

  it('serialises to plain JSON without undefined fields', () => {
    const s = ociSpec(base);
    assert.deepEqual(JSON.parse(JSON.stringify(s)), s);
  });
});
