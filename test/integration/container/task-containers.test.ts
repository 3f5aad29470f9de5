// A swarm task's container for real, through taskContainers with no HTTP in between: the areas are
// wired in-process as the daemon wires them (as create-path.test.ts does), and a task with a secret,
// a config and a host-mode port is created, run, stopped with its grace period and removed. What
// the container sees is served back by busybox httpd on the published port. The default bridge
// and the port's DNAT would be the host's in this process's namespace, so the file runs itself
// again under nsenter in a network namespace of its own (node runs a test file given to it alone).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { createContainerStore } from '../../../src/container/create-container-store.js';
import { createContainers } from '../../../src/container/create-containers.js';
import type { TaskContainerRequest } from '../../../src/container/task-containers.js';
import { EventBus } from '../../../src/events/event-bus.js';
import { createImages } from '../../../src/image/create-images.js';
import { EngineMetrics } from '../../../src/metrics/engine-metrics.js';
import { createNetworks } from '../../../src/network/create-networks.js';
import { createRootfs } from '../../../src/rootfs/create-rootfs.js';
import { createVolumes } from '../../../src/volume/create-volumes.js';
import { tempDir } from '../../helpers/berthd.js';
import { busyboxImageArchive } from '../../helpers/busybox-image.js';
import { sweep } from '../../helpers/containers.js';
import { mountsUnder } from '../../helpers/leftovers.js';
import { createTestNetns } from '../../helpers/netns.js';
import { until } from '../../helpers/until.js';

const NETNS_ENV = 'BERTH_TASK_TEST_NETNS';
const SECRET = 'task-secret-8d1f';
const SECRET_TARGET = '/run/secrets/db_password';
const CONFIG_TARGET = '/etc/app/app.conf';

/**
 * What the task's process reports of itself, served at / of its httpd (the secret by its digest:
 * the report is on disk); TERM ignored, so a stop waits out the grace period.
 */
const SCRIPT = `trap '' TERM
mkdir -p /tmp/www
{
  echo "dir=$(pwd)"
  echo "user=$(id -u):$(id -g)"
  echo "hostname=$(hostname)"
  echo "greeting=$GREETING"
  echo "secret_md5=$(md5sum < ${SECRET_TARGET})"
  echo "secret_stat=$(stat -c '%a %u %g' ${SECRET_TARGET})"
  echo "secret_fs=$(stat -f -c %T ${SECRET_TARGET})"
  echo "secret_mount=$(grep ' ${SECRET_TARGET} ' /proc/mounts)"
  echo "config=$(cat ${CONFIG_TARGET})"
  echo "config_stat=$(stat -c '%a %u %g' ${CONFIG_TARGET})"
  echo "config_mount=$(grep ' ${CONFIG_TARGET} ' /proc/mounts)"
} > /tmp/www/index.html
exec httpd -f -p 80 -h /tmp/www`;

function taskRequest(name: string, taskId: string): TaskContainerRequest {
  return {
    name,
    labels: { 'com.docker.swarm.task': '', 'com.docker.swarm.task.id': taskId, 'com.docker.swarm.service.name': 'web' },
    spec: {
      ForceUpdate: 0,
      ContainerSpec: { Image: 'busybox', Labels: { app: 'web' }, Command: ['sh', '-c', SCRIPT], Env: ['GREETING=hello'], User: '1000:1000', Dir: '/srv/app', Hostname: 'web-1', Isolation: 'default' },
    },
    hostPorts: [{ Protocol: 'tcp', TargetPort: 80, PublishedPort: 0, PublishMode: 'host' }],
    secrets: [{ target: SECRET_TARGET, data: Buffer.from(SECRET), uid: '1000', gid: '1001', mode: 0o400 }],
    configs: [{ target: CONFIG_TARGET, data: Buffer.from('port=80'), uid: '0', gid: '0', mode: 0o444 }],
    networks: [],
  };
}

/** Every file under `dir` whose content holds `text`. */
function filesHolding(dir: string, text: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .filter((f) => readFileSync(f).includes(text));
}

const netns = process.env[NETNS_ENV];
if (netns === undefined) {
  test('task containers, in a network namespace of their own', (t) => {
    const env: NodeJS.ProcessEnv = { ...process.env, [NETNS_ENV]: createTestNetns('tasks') };
    // the child reports as a test file run alone, not as one under this runner
    delete env.NODE_TEST_CONTEXT;
    const r = spawnSync('nsenter', [`--net=${env[NETNS_ENV]}`, '--', process.execPath, fileURLToPath(import.meta.url)], { env, encoding: 'utf8', timeout: 240_000 });
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    for (const line of r.stdout.split('\n')) if (/^\s*ok \d+ - /.test(line)) t.diagnostic(line.trim());
  });
} else {
  describe('taskContainers', () => {
    const dir = tempDir('berth-task-containers-');
    const dataRoot = path.join(dir, 'root');
    const execRoot = path.join(dir, 'exec');
    const log = pino({ level: 'silent' });
    const events = new EventBus();
    let containers: Awaited<ReturnType<typeof createContainers>>;
    let networks: Awaited<ReturnType<typeof createNetworks>>;

    before(async () => {
      const rootfs = createRootfs({ dataRoot, log });
      const records = createContainerStore({ dataRoot, execRoot, rootfs });
      const images = createImages({ dataRoot, events, log, usage: records.usage, registry: { settings: { insecureRegistries: [], mirrors: [], certsDir: path.join(dir, 'certs.d') }, maxConcurrentDownloads: 3, maxConcurrentUploads: 5 } });
      const progress = { stream: async () => undefined, status: async () => undefined, progress: async () => undefined, aux: async () => undefined };
      await images.api.load().run({ out: progress, input: Readable.from([await busyboxImageArchive()]), signal: new AbortController().signal });
      networks = await createNetworks({ dataRoot, execRoot, events, log, settings: { iptables: true, bip: '', bridge: '', dns: [] } });
      const volumes = await createVolumes({ dataRoot, events, log, users: records.usage.volumeUsers, pluginsDir: path.join(dir, 'plugins') });
      containers = await createContainers({ dataRoot, events, log, records, rootfs, images: images.store, networks: networks.containers, volumes: volumes.containers, metrics: new EngineMetrics(), logConfig: { Type: 'json-file', Config: {} } });
    });

    after(async () => {
      // what a failed test left running holds its host port, which would keep this process alive
      for (const r of containers?.service.list() ?? []) await containers.service.remove(r.id, { force: true, removeVolumes: true });
      await containers?.shutdown();
      await networks?.shutdown();
      sweep(dir);
    });

    test('runs the task with its secret, config, environment, user and host port; stops it with its grace; removes every trace', async () => {
      const tasks = containers.taskContainers;
      const { id, warnings } = await tasks.create(taskRequest('web.1.tid1', 'tid1'));
      assert.deepEqual(warnings, []);
      const secretsDir = path.join(execRoot, 'secrets', id);
      assert.deepEqual(tasks.list('com.docker.swarm.task.id'), [{ id, labels: { app: 'web', 'com.docker.swarm.task': '', 'com.docker.swarm.task.id': 'tid1', 'com.docker.swarm.service.name': 'web' } }]);
      assert.deepEqual(tasks.inspect(id), { running: false, everStarted: false, pid: 0, exitCode: 0, error: '', startedAt: '0001-01-01T00:00:00Z', finishedAt: '0001-01-01T00:00:00Z', ports: [], endpoints: [] });

      await tasks.start(id);
      const ended = tasks.wait(id);
      const state = tasks.inspect(id);
      assert.ok(state?.running && state.everStarted && state.pid > 0, JSON.stringify(state));
      assert.equal(state.ports.length, 1);
      const [port] = state.ports;
      assert.deepEqual({ ...port, PublishedPort: 0 }, { Protocol: 'tcp', TargetPort: 80, PublishedPort: 0, PublishMode: 'host' });
      assert.ok(port.PublishedPort! > 0);

      // what the task sees, from its host port
      const served = await until(
        'the task to serve its report',
        () => fetch(`http://127.0.0.1:${port.PublishedPort}/`).then((r) => (r.ok ? r.text() : ''), () => ''),
        (text) => text.includes('config_mount='),
      );
      const seen = Object.fromEntries(served.trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
      assert.equal(seen.dir, '/srv/app');
      assert.equal(seen.user, '1000:1000');
      assert.equal(seen.hostname, 'web-1');
      assert.equal(seen.greeting, 'hello');
      assert.equal(seen.secret_md5.split(' ')[0], createHash('md5').update(SECRET).digest('hex'));
      assert.equal(seen.secret_stat, '400 1000 1001');
      assert.equal(seen.secret_fs, 'tmpfs');
      assert.match(seen.secret_mount, new RegExp(`^tmpfs ${SECRET_TARGET} tmpfs ro,`));
      // configs are secret on unix too, as dockerd keeps them
      assert.equal(seen.config, 'port=80');
      assert.equal(seen.config_stat, '444 0 0');
      assert.match(seen.config_mount, new RegExp(`^tmpfs ${CONFIG_TARGET} tmpfs ro,`));

      // on the host, a read-only tmpfs of the container's own holds them, and nothing under the data root does
      const hostMount = readFileSync('/proc/self/mountinfo', 'utf8').split('\n').find((l) => l.split(' ')[4] === secretsDir);
      assert.match(hostMount ?? '', / ro,.* - tmpfs /);
      assert.deepEqual(filesHolding(dataRoot, SECRET), []);

      // TERM is ignored: the stop waits out the 2 s it is given, then kills
      const stopping = Date.now();
      await tasks.stop(id, 2);
      const tookMs = Date.now() - stopping;
      assert.ok(tookMs >= 2000 && tookMs < 8000, `the stop took ${tookMs} ms`);
      assert.equal(await ended, 137);
      const stopped = tasks.inspect(id);
      // ended, it has still run: the agent does not start it again
      assert.deepEqual([stopped?.running, stopped?.everStarted, stopped?.exitCode, stopped?.ports], [false, true, 137, []]);
      // a second stop, as the agent may send after a restart, is no error
      await tasks.stop(id, 2);

      await tasks.remove(id);
      assert.equal(tasks.inspect(id), undefined);
      assert.deepEqual(mountsUnder(path.join(execRoot, 'secrets')), []);
      assert.equal(existsSync(secretsDir), false);
      assert.deepEqual(tasks.list('com.docker.swarm.task.id'), []);
      await tasks.remove(id);
    });

    test("leaves no mount when the task's container is removed another way (docker rm -f)", async () => {
      const { id } = await containers.taskContainers.create(taskRequest('web.2.tid2', 'tid2'));
      assert.equal(mountsUnder(path.join(execRoot, 'secrets')).length, 1);
      await containers.service.remove(id, { force: true, removeVolumes: false });
      assert.deepEqual(mountsUnder(path.join(execRoot, 'secrets')), []);
      assert.equal(existsSync(path.join(execRoot, 'secrets', id)), false);
    });

    test('refuses an owner that is no number before making anything', async () => {
      const req = taskRequest('web.3.tid3', 'tid3');
      await assert.rejects(containers.taskContainers.create({ ...req, secrets: [{ ...req.secrets[0], uid: 'app' }] }), { kind: 'invalidParameter' });
      assert.deepEqual(containers.taskContainers.list('com.docker.swarm.task.id'), []);
    });
  });
}
