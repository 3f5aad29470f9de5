// What create's options do, seen from inside the container (`docker run --rm ... sh -c`) or from the
// host's cgroups: user and groups, working directory, environment, names, capabilities, privileged,
// read-only root, tmpfs, ulimits, memory, pids, shm, binds, mounts, init, sysctls, /etc files, stop
// signal and labels; and inspect echoing every field a raw create set.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempDir, type Berthd } from '../../helpers/berthd.js';
import { inspectContainer, startWithBusybox, teardown } from '../../helpers/containers.js';
import { BUSYBOX_PATH } from '../../helpers/busybox-image.js';

// capability bit numbers (linux/capability.h) of the ones the tests name
const CAP_BITS: Record<string, number> = {
  CHOWN: 0, DAC_OVERRIDE: 1, DAC_READ_SEARCH: 2, FOWNER: 3, FSETID: 4, KILL: 5, SETGID: 6, SETUID: 7, SETPCAP: 8,
  LINUX_IMMUTABLE: 9, NET_BIND_SERVICE: 10, NET_BROADCAST: 11, NET_ADMIN: 12, NET_RAW: 13, IPC_LOCK: 14, IPC_OWNER: 15,
  SYS_MODULE: 16, SYS_RAWIO: 17, SYS_CHROOT: 18, SYS_PTRACE: 19, SYS_PACCT: 20, SYS_ADMIN: 21, SYS_BOOT: 22, SYS_NICE: 23,
  SYS_RESOURCE: 24, SYS_TIME: 25, SYS_TTY_CONFIG: 26, MKNOD: 27, LEASE: 28, AUDIT_WRITE: 29, AUDIT_CONTROL: 30, SETFCAP: 31,
};
const DOCKER_DEFAULT_CAPS = ['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'NET_RAW', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT'];

/** The named capabilities set in a CapEff line's hex mask. */
function decodeCaps(statusText: string): string[] {
  const hex = /^CapEff:\s*([0-9a-f]+)$/m.exec(statusText)?.[1];
  assert.ok(hex, `no CapEff in ${statusText}`);
  const mask = BigInt(`0x${hex}`);
  return Object.entries(CAP_BITS).filter(([, bit]) => (mask >> BigInt(bit)) & 1n).map(([name]) => name).sort();
}

/** A limit of this process from /proc/self/limits: the daemon runs as the same root, with the same limits. */
function ownHardLimit(name: string): number {
  const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith(name));
  assert.ok(line, `no ${name} in /proc/self/limits`);
  return Number(line.slice(name.length).trim().split(/\s+/)[1]);
}

describe('create options, seen from inside the container', () => {
  let d: Berthd;
  before(async () => {
    d = await startWithBusybox();
  });
  after(async () => {
    await teardown(d);
  });

  /** `docker run --rm <args>`: its stdout; fails the test on a non-zero exit. */
  async function run(...args: string[]): Promise<string> {
    const r = await d.docker(['run', '--rm', ...args]);
    assert.equal(r.code, 0, `docker run ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  }

  const containerCount = async () => (JSON.parse((await d.request('GET', '/containers/json?all=1')).body) as unknown[]).length;

  test('user: a name, uid:gid, nobody, an unknown uid, and --group-add by name and number', async () => {
    assert.equal(await run('-u', 'test', 'busybox', 'id'), 'uid=1000(test) gid=1000(test) groups=1000(test)\n');
    assert.equal(await run('-u', '1000:1000', 'busybox', 'id'), 'uid=1000(test) gid=1000(test) groups=1000(test)\n');
    assert.equal(await run('-u', 'nobody', 'busybox', 'id'), 'uid=65534(nobody) gid=65534(nogroup) groups=65534(nogroup)\n');
    assert.equal(await run('-u', '4242', 'busybox', 'id'), 'uid=4242 gid=0(root) groups=0(root)\n');
    assert.equal(await run('--group-add', 'test', '--group-add', '65534', 'busybox', 'id'), 'uid=0(root) gid=0(root) groups=0(root),1000(test),65534(nogroup)\n');
    assert.equal(await run('-u', 'test', 'busybox', 'sh', '-c', 'echo $HOME'), '/home/test\n');
    const unknown = await d.docker(['run', '--rm', '-u', 'nosuchuser', 'busybox', 'true']);
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /nosuchuser/);
  });

  test('-w: the working directory, made when missing', async () => {
    assert.equal(await run('-w', '/does/not/exist', 'busybox', 'sh', '-c', 'pwd; test -d /does/not/exist && echo dir'), '/does/not/exist\ndir\n');
    assert.equal(await run('-w', '/tmp', 'busybox', 'pwd'), '/tmp\n');
  });

  test('env: -e adds to the image\'s variables, HOSTNAME and HOME are set, -e overrides the image', async () => {
    const env = (await run('-e', 'FOO=bar', '-e', 'EMPTY=', 'busybox', 'env')).split('\n');
    assert.ok(env.includes(BUSYBOX_PATH), env.join('\n'));
    assert.ok(env.includes('FOO=bar'));
    assert.ok(env.includes('EMPTY='));
    assert.ok(env.includes('HOME=/root'));
    assert.ok(env.some((l) => /^HOSTNAME=[0-9a-f]{12}$/.test(l)), env.join('\n'));
    const over = (await run('-e', 'PATH=/bin', 'busybox', 'env')).split('\n');
    assert.deepEqual(over.filter((l) => l.startsWith('PATH=')), ['PATH=/bin']);
  });

  test('env: a raw create with "PATH" (no =) removes the image\'s PATH at /v1.41, sets it empty at /v1.25', async () => {
    const envIn = async (prefix: string) => {
      const c = await d.request('POST', `${prefix}/containers/create`, { json: { Image: 'busybox', Cmd: ['/bin/env'], Env: ['PATH', 'FOO=1'] } });
      assert.equal(c.status, 201, c.body);
      const { Id } = c.json() as { Id: string };
      const r = await d.docker(['start', '-a', Id]);
      await d.docker(['rm', Id]);
      assert.equal(r.code, 0, r.stderr);
      return r.stdout.split('\n');
    };
    const v41 = await envIn('/v1.41');
    assert.ok(v41.includes('FOO=1'));
    assert.deepEqual(v41.filter((l) => l.startsWith('PATH')), [], v41.join('\n'));
    const v25 = await envIn('/v1.25');
    assert.deepEqual(v25.filter((l) => l.startsWith('PATH')), ['PATH='], v25.join('\n'));
  });

  test('-h and --domainname name the UTS namespace and /etc/hostname', async () => {
    const out = await run('-h', 'myhost', '--domainname', 'example.org', 'busybox', 'sh', '-c', 'hostname; cat /proc/sys/kernel/domainname /etc/hostname');
    assert.equal(out, 'myhost\nexample.org\nmyhost\n');
  });

  test('capabilities: Docker\'s default set, --cap-add NET_ADMIN and --cap-drop CHOWN', async () => {
    assert.deepEqual(decodeCaps(await run('busybox', 'cat', '/proc/self/status')), [...DOCKER_DEFAULT_CAPS].sort());
    const changed = decodeCaps(await run('--cap-add', 'NET_ADMIN', '--cap-drop', 'CHOWN', 'busybox', 'cat', '/proc/self/status'));
    assert.deepEqual(changed, [...DOCKER_DEFAULT_CAPS.filter((c) => c !== 'CHOWN'), 'NET_ADMIN'].sort());
    // dropped CHOWN is felt, not only listed
    const chown = await d.docker(['run', '--rm', '--cap-drop', 'CHOWN', 'busybox', 'sh', '-c', 'touch /tmp/f && chown 1000 /tmp/f']);
    assert.notEqual(chown.code, 0);
    assert.match(chown.stderr, /Operation not permitted/);
    // ALL means every capability the daemon has, as with --privileged
    const all = decodeCaps(await run('--cap-add', 'ALL', '--cap-drop', 'NET_RAW', 'busybox', 'cat', '/proc/self/status'));
    assert.deepEqual(all, decodeCaps(readFileSync('/proc/self/status', 'utf8')).filter((c) => c !== 'NET_RAW'));
  });

  test('--privileged runs, with every capability the daemon has (root here lacks CAP_SYS_RESOURCE)', async () => {
    // Docker 20.10 asks runc for all capabilities and fails ("unable to apply caps"); berth must not
    const own = decodeCaps(readFileSync('/proc/self/status', 'utf8'));
    const inside = decodeCaps(await run('--privileged', 'busybox', 'cat', '/proc/self/status'));
    assert.deepEqual(inside, own);
    assert.ok(inside.includes('SYS_ADMIN'));
    // the host's devices (loop-control is not among a default container's), and a writable /sys
    assert.equal(await run('--privileged', 'busybox', 'sh', '-c', 'test -c /dev/loop-control && echo loop; grep " /sys " /proc/mounts | grep -c "sysfs rw"'), 'loop\n1\n');
    assert.equal(await run('busybox', 'sh', '-c', 'test -e /dev/loop-control || echo none'), 'none\n');
  });

  test('--read-only: writes to / fail, a --tmpfs /tmp works', async () => {
    const out = await run('--read-only', '--tmpfs', '/tmp', 'busybox', 'sh', '-c', 'touch /x 2>&1; echo rc=$?; touch /tmp/y && echo tmp ok');
    assert.equal(out, 'touch: /x: Read-only file system\nrc=1\ntmp ok\n');
  });

  test('--tmpfs /x:size=1m,mode=700: the options are in /proc/mounts', async () => {
    const out = await run('--tmpfs', '/x:size=1m,mode=700', 'busybox', 'sh', '-c', 'grep " /x " /proc/mounts; stat -c %a /x');
    const [line, mode] = out.trim().split('\n');
    assert.match(line, /^tmpfs \/x tmpfs rw,/);
    assert.match(line, /[ ,]size=1024k[ ,]/);
    assert.match(line, /[ ,]mode=700[ ,]/);
    assert.equal(mode, '700');
  });

  test('--ulimit nofile=1024:2048 sets the soft and hard limits', async () => {
    assert.equal(await run('--ulimit', 'nofile=1024:2048', 'busybox', 'sh', '-c', 'ulimit -n; ulimit -Hn'), '1024\n2048\n');
  });

  test('a --ulimit above the daemon\'s hard limit is a 400 at create naming it, and leaves no container', async () => {
    const hard = ownHardLimit('Max open files');
    const before = await containerCount();
    const r = await d.request('POST', '/containers/create', {
      json: { Image: 'busybox', Cmd: ['true'], HostConfig: { Ulimits: [{ Name: 'nofile', Soft: hard + 1, Hard: hard + 1 }] } },
    });
    assert.equal(r.status, 400, r.body);
    const { message } = r.json() as { message: string };
    assert.match(message, /nofile/);
    assert.match(message, new RegExp(String(hard + 1)));
    assert.equal(await containerCount(), before);
    const cli = await d.docker(['run', '--rm', '--ulimit', `nofile=${hard + 1}:${hard + 1}`, 'busybox', 'true']);
    assert.equal(cli.code, 125);
    assert.match(cli.stderr, /nofile/);
    assert.equal(await containerCount(), before);
    // up to the limit is fine
    assert.equal(await run('--ulimit', `nofile=${hard}:${hard}`, 'busybox', 'sh', '-c', 'ulimit -Hn'), `${hard}\n`);
  });

  test('--memory 64m is the limit of the container\'s memory cgroup, seen from the host', async () => {
    const id = (await d.docker(['run', '-d', '--memory', '64m', 'busybox', 'sleep', '300'])).stdout.trim();
    try {
      const { State } = await inspectContainer(d, id);
      assert.ok(State.Pid > 0);
      const line = readFileSync(`/proc/${State.Pid}/cgroup`, 'utf8').split('\n').find((l) => /^\d+:memory:/.test(l));
      assert.ok(line, 'the container has a v1 memory cgroup');
      const cgroup = line.split(':')[2];
      assert.match(cgroup, new RegExp(id));
      assert.equal(readFileSync(path.join('/sys/fs/cgroup/memory', cgroup, 'memory.limit_in_bytes'), 'utf8').trim(), String(64 * 1024 * 1024));
    } finally {
      await d.docker(['rm', '-f', id]);
    }
  });

  test('--pids-limit caps the pids cgroup; a fork beyond it fails', async () => {
    assert.equal(await run('--pids-limit', '50', 'busybox', 'cat', '/sys/fs/cgroup/pids/pids.max'), '50\n');
    // the shell lives a moment first: one that ends within runc start's own wait can fail the start
    // with "container process is already dead", as dockerd's can (docker/for-linux#647)
    const r = await d.docker(['run', '--rm', '--pids-limit', '5', 'busybox', 'sh', '-c', 'sleep 1; for i in 1 2 3 4 5 6 7 8; do sleep 5 & done; echo forked']);
    assert.notEqual(r.code, 0);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /can't fork: Resource temporarily unavailable/);
  });

  test('--shm-size sizes /dev/shm', async () => {
    assert.match(await run('--shm-size', '8m', 'busybox', 'grep', ' /dev/shm ', '/proc/mounts'), /^shm \/dev\/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=8192k\b/);
    assert.match(await run('busybox', 'grep', ' /dev/shm ', '/proc/mounts'), /size=65536k/);
  });

  test('-v hostdir:/mnt:ro: the host\'s files are there, and writes fail', async () => {
    const dir = tempDir('berth-bind-');
    writeFileSync(path.join(dir, 'hello'), 'from the host\n');
    const out = await run('-v', `${dir}:/mnt:ro`, 'busybox', 'sh', '-c', 'cat /mnt/hello; touch /mnt/x 2>&1; echo rc=$?');
    assert.equal(out, 'from the host\ntouch: /mnt/x: Read-only file system\nrc=1\n');
    assert.equal(existsSync(path.join(dir, 'x')), false);
    const rw = await run('-v', `${dir}:/mnt`, 'busybox', 'sh', '-c', 'echo written > /mnt/y');
    assert.equal(rw, '');
    assert.equal(readFileSync(path.join(dir, 'y'), 'utf8'), 'written\n');
  });

  test('--mount type=tmpfs with size and mode', async () => {
    const out = await run('--mount', 'type=tmpfs,target=/m,tmpfs-size=2m,tmpfs-mode=1770', 'busybox', 'sh', '-c', 'grep " /m " /proc/mounts; stat -c %a /m');
    const [line, mode] = out.trim().split('\n');
    assert.match(line, /^tmpfs \/m tmpfs rw,.*size=2048k/);
    assert.equal(mode, '1770');
  });

  test('--init: pid 1 is docker-init (catatonit), the command its child', async () => {
    const out = await run('--init', 'busybox', 'sh', '-c', 'tr "\\0" " " < /proc/1/cmdline; echo; echo $$');
    const [cmdline, shellPid] = out.split('\n');
    assert.equal(cmdline.trim().split(' ')[0], '/sbin/docker-init');
    assert.ok(cmdline.includes('-- sh -c'), cmdline);
    assert.notEqual(shellPid, '1');
    assert.equal(await run('busybox', 'sh', '-c', 'echo $$'), '1\n');
  });

  test('--sysctl net.ipv4.ip_forward=1 is set in the container\'s network namespace only', async () => {
    const host = readFileSync('/proc/sys/net/ipv4/ip_forward', 'utf8');
    assert.equal(await run('--sysctl', 'net.ipv4.ip_forward=1', 'busybox', 'cat', '/proc/sys/net/ipv4/ip_forward'), '1\n');
    assert.equal(readFileSync('/proc/sys/net/ipv4/ip_forward', 'utf8'), host);
  });

  test('--add-host and --dns, --dns-search, --dns-option write /etc/hosts and /etc/resolv.conf', async () => {
    const out = await run('--add-host', 'foo:10.1.2.3', '--dns', '10.9.9.9', '--dns-search', 'example.org', '--dns-option', 'ndots:2', 'busybox', 'sh', '-c', 'cat /etc/hosts; echo ---; cat /etc/resolv.conf');
    const [hosts, resolv] = out.split('---\n');
    assert.match(hosts, /^10\.1\.2\.3\tfoo$/m);
    assert.match(hosts, /^127\.0\.0\.1\tlocalhost$/m);
    assert.match(resolv, /^nameserver 10\.9\.9\.9$/m);
    assert.doesNotMatch(resolv, /^nameserver (?!10\.9\.9\.9$)/m);
    assert.match(resolv, /^search example\.org$/m);
    assert.match(resolv, /^options ndots:2$/m);
  });

  test('--stop-signal: docker stop sends it, and the container\'s trap sees it', async () => {
    const id = (await d.docker(['run', '-d', '--stop-signal', 'SIGUSR1', 'busybox', 'sh', '-c', 'trap "echo got USR1; exit 7" USR1; echo ready; while true; do sleep 0.1; done'])).stdout.trim();
    try {
      for (let i = 0; i < 50 && !(await d.docker(['logs', id])).stdout.includes('ready'); i++) await new Promise((r) => setTimeout(r, 100));
      assert.equal((JSON.parse((await d.docker(['inspect', id])).stdout) as Array<{ Config: { StopSignal: string } }>)[0].Config.StopSignal, 'SIGUSR1');
      assert.equal((await d.docker(['stop', '-t', '10', id])).code, 0);
      assert.equal((await d.docker(['wait', id])).stdout.trim(), '7');
      assert.equal((await d.docker(['logs', id])).stdout, 'ready\ngot USR1\n');
    } finally {
      await d.docker(['rm', '-f', id]);
    }
  });

  test('labels: set at create, shown by inspect, filtered by ps', async () => {
    const id = (await d.docker(['create', '--label', 'team=blue', '--label', 'empty=', 'busybox', 'true'])).stdout.trim();
    try {
      assert.deepEqual((await inspectContainer(d, id)).Config.Labels, { team: 'blue', empty: '' });
      assert.equal((await d.docker(['ps', '-aq', '--no-trunc', '--filter', 'label=team=blue'])).stdout.trim(), id);
    } finally {
      await d.docker(['rm', id]);
    }
  });

  test('inspect echoes every Config and HostConfig field a raw create set', async () => {
    const bind = tempDir('berth-bind-');
    const config = {
      Hostname: 'echo-host',
      Domainname: 'example.org',
      User: '1000:1000',
      Env: ['A=1', 'B=two'],
      Cmd: ['sleep', '300'],
      Entrypoint: ['/bin/sh', '-c', 'exec "$@"', 'sh'],
      WorkingDir: '/work',
      Labels: { a: 'b' },
      StopSignal: 'SIGUSR2',
      StopTimeout: 7,
      Tty: true,
      OpenStdin: true,
      AttachStdin: false,
      ExposedPorts: { '80/tcp': {} },
      Healthcheck: { Test: ['CMD-SHELL', 'true'], Interval: 2_000_000_000, Timeout: 1_000_000_000, Retries: 4, StartPeriod: 3_000_000_000 },
    };
    const hostConfig = {
      Memory: 64 * 1024 * 1024,
      MemoryReservation: 32 * 1024 * 1024,
      MemorySwap: 128 * 1024 * 1024,
      PidsLimit: 100,
      CpuShares: 512,
      CpusetCpus: '0',
      NanoCpus: 500_000_000,
      ShmSize: 16 * 1024 * 1024,
      ReadonlyRootfs: true,
      CapAdd: ['NET_ADMIN'],
      CapDrop: ['CHOWN'],
      Dns: ['10.9.9.9'],
      DnsOptions: ['ndots:2'],
      DnsSearch: ['example.org'],
      ExtraHosts: ['foo:10.1.2.3'],
      GroupAdd: ['65534'],
      Ulimits: [{ Name: 'nofile', Soft: 1024, Hard: 2048 }],
      Sysctls: { 'net.ipv4.ip_forward': '1' },
      Tmpfs: { '/run': 'size=1m' },
      Binds: [`${bind}:/data:ro`],
      Mounts: [{ Type: 'tmpfs', Target: '/scratch', TmpfsOptions: { SizeBytes: 1024 * 1024 } }],
      RestartPolicy: { Name: 'on-failure', MaximumRetryCount: 3 },
      Init: true,
      OomScoreAdj: 100,
      SecurityOpt: ['no-new-privileges'],
      LogConfig: { Type: 'json-file', Config: { 'max-size': '1m' } },
    };
    const c = await d.request('POST', '/containers/create?name=echo', { json: { Image: 'busybox', ...config, HostConfig: hostConfig } });
    assert.equal(c.status, 201, c.body);
    const { Id } = c.json() as { Id: string };
    try {
      const r = await d.request('GET', `/containers/${Id}/json`);
      assert.equal(r.status, 200);
      const got = r.json() as { Config: Record<string, unknown>; HostConfig: Record<string, unknown>; Name: string };
      assert.equal(got.Name, '/echo');
      // the image's variables follow the request's
      for (const [k, v] of Object.entries({ ...config, Env: [...config.Env, BUSYBOX_PATH] })) assert.deepEqual(got.Config[k], v, `Config.${k}`);
      assert.equal(got.Config.Image, 'busybox');
      for (const [k, v] of Object.entries(hostConfig)) assert.deepEqual(got.HostConfig[k], v, `HostConfig.${k}`);
      // and it runs as configured
      assert.equal((await d.docker(['start', Id])).code, 0);
      const { State } = await inspectContainer(d, Id);
      assert.equal(State.Running, true);
      const status = readFileSync(`/proc/${State.Pid}/status`, 'utf8');
      assert.match(status, /^Uid:\s+1000\s/m);
      // the primary group comes first, as with Docker
      assert.match(status, /^Groups:\s+1000 65534\s*$/m);
    } finally {
      await d.docker(['rm', '-f', Id]);
    }
  });
});
