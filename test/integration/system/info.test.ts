import assert from 'node:assert/strict';
import { readFileSync, statfsSync } from 'node:fs';
import os from 'node:os';
import { after, before, describe, it } from 'node:test';
import Docker from 'dockerode';
import { VERSION_PREFIXES } from '../../helpers/api-versions.js';
import { Berthd } from '../../helpers/berthd.js';

let d: Berthd;
before(async () => {
  d = await Berthd.start({ args: ['--label', 'rack=r1', '--label', 'zone=a', '--log-driver', 'journald'], env: { HTTP_PROXY: 'http://user:secret@proxy.invalid:3128' } });
});
after(() => d.stop());

type Info = Record<string, unknown>;

async function info(prefix = ''): Promise<Info> {
  const r = await d.request('GET', `${prefix}/info`);
  assert.equal(r.status, 200);
  assert.equal(r.headers['content-type'], 'application/json');
  return r.json() as Info;
}

for (const prefix of VERSION_PREFIXES) {
  describe(`GET ${prefix}/info`, () => {
    it('tells true facts of the machine', async () => {
      const i = await info(prefix);
      assert.equal(i.NCPU, os.availableParallelism());
      assert.equal(i.MemTotal, os.totalmem());
      assert.equal(i.KernelVersion, os.release());
      assert.equal(i.Name, os.hostname());
      assert.equal(i.OSType, 'linux');
      assert.equal(i.Architecture, os.machine());
      const prettyName = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1];
      assert.equal(i.OperatingSystem, prettyName);
      const cgroupVersion = statfsSync('/sys/fs/cgroup').type === 0x63677270 ? '2' : '1';
      assert.equal(i.CgroupVersion, cgroupVersion);
      assert.equal(i.CgroupDriver, 'cgroupfs');
      const drift = Math.abs(Date.parse(i.SystemTime as string) - Date.now());
      assert.ok(drift < 5000, `SystemTime ${i.SystemTime} is ${drift} ms off`);
    });
    it("tells true facts of the daemon", async () => {
      const i = await info(prefix);
      assert.equal(i.Driver, 'overlay2');
      assert.equal(i.DockerRootDir, d.dataRoot);
      // the daemon's default driver, journald here (no journal is needed until a container starts, as dockerd)
      assert.equal(i.LoggingDriver, 'journald');
      assert.equal(i.DefaultRuntime, 'runc');
      assert.deepEqual(Object.keys(i.Runtimes as object), ['runc']);
      // what is true of berth: containers outlive the daemon, catatonit is the init, only what works is listed
      // (the log drivers as dockerd lists the ones it has: sorted, none left out)
      assert.equal(i.LiveRestoreEnabled, true);
      assert.equal(i.InitBinary, 'catatonit');
      assert.deepEqual(i.Plugins, { Volume: ['local'], Network: ['bridge', 'host', 'ipvlan', 'macvlan', 'null'], Authorization: null, Log: ['journald', 'json-file', 'local', 'syslog'] });
      assert.deepEqual(i.Labels, ['rack=r1', 'zone=a']);
      assert.equal(i.Debug, false);
      assert.equal(i.Containers, 0);
      assert.equal(i.Images, 0);
      assert.equal((i.Swarm as { LocalNodeState: string }).LocalNodeState, 'inactive');
      assert.match(i.ID as string, /^[0-9a-f-]{36}$/);
      assert.ok(Array.isArray(i.SecurityOptions));
      assert.ok(i.Warnings === null || Array.isArray(i.Warnings));
    });
  });
}

it('never shows proxy credentials', async () => {
  const i = await info();
  assert.equal(i.HttpProxy, 'http://xxxxx:xxxxx@proxy.invalid:3128');
  assert.ok(!JSON.stringify(i).includes('secret'));
});

it('keeps its ID across restarts of the daemon', async () => {
  const first = await Berthd.start();
  const id = (await first.request('GET', '/info').then((r) => r.json() as Info)).ID;
  await first.stop();
  const second = await Berthd.start({ dataRoot: first.dataRoot });
  try {
    const again = (await second.request('GET', '/info').then((r) => r.json() as Info)).ID;
    assert.equal(again, id);
  } finally {
    await second.stop();
  }
});

it('docker info shows it through the CLI', async () => {
  const r = await d.docker(['info', '--format', '{{.Driver}}|{{.DockerRootDir}}|{{.NCPU}}|{{json .Labels}}|{{.CgroupDriver}}']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), `overlay2|${d.dataRoot}|${os.availableParallelism()}|["rack=r1","zone=a"]|cgroupfs`);
  const plain = await d.docker(['info']);
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /Server Version: \S+/);
  assert.match(plain.stdout, /Storage Driver: overlay2/);
});

it('docker info works with the CLI held to API 1.25', async () => {
  const r = await d.docker(['info', '--format', '{{.ServerVersion}} {{.OSType}}'], { env: { DOCKER_API_VERSION: '1.25' } });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout.trim(), /^\S+ linux$/);
});

it('dockerode reads info', async () => {
  const i = (await new Docker({ socketPath: d.socket }).info()) as Info;
  assert.equal(i.DockerRootDir, d.dataRoot);
});
