import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Berthd, tempDir } from '../../helpers/berthd.js';
import { request } from '../../helpers/http.js';
import { freePort } from '../../helpers/ports.js';
import { makeTlsFixtures, type TlsFixtures } from '../../helpers/tls.js';
import { dockerCli } from '../../helpers/docker-cli.js';

function dockerGid(): number | undefined {
  const line = readFileSync('/etc/group', 'utf8').split('\n').find((l) => l.startsWith('docker:'));
  return line ? Number(line.split(':')[2]) : undefined;
}

it('creates the unix socket with mode 0660, group docker when it exists', async () => {
  const d = await Berthd.start();
  try {
    const st = statSync(d.socket);
    assert.ok(st.isSocket());
    assert.equal(st.mode & 0o777, 0o660);
    assert.equal(st.gid, dockerGid() ?? 0);
  } finally {
    await d.stop();
  }
});

it('a socket inside the exec root, as the default one is, can be reached by its group', async () => {
  const dir = tempDir();
  chmodSync(dir, 0o711); // mkdtemp's 0700 would hide everything below it
  const execRoot = path.join(dir, 'exec');
  const socket = path.join(execRoot, 'berth.sock');
  const d = await Berthd.start({ socket, args: ['--exec-root', execRoot] });
  try {
    // a member of the socket's group who is not root: nobody, with the group's id
    const gid = statSync(socket).gid;
    const r = spawnSync('setpriv', ['--reuid=65534', `--regid=${gid}`, '--clear-groups', 'test', '-w', socket]);
    assert.equal(r.status, 0, 'the socket is not writable for its group');
  } finally {
    await d.stop();
  }
});

it('serves several -H addresses at once', async () => {
  const port = await freePort();
  const dir = tempDir();
  const second = path.join(dir, 'second.sock');
  const d = await Berthd.start({ args: ['-H', `unix://${second}`, '-H', `tcp://127.0.0.1:${port}`, '--tls=false'] });
  try {
    assert.equal((await request({ socketPath: second }, 'GET', '/_ping')).status, 200);
    assert.equal((await request({ host: '127.0.0.1', port }, 'GET', '/_ping')).status, 200);
  } finally {
    await d.stop();
  }
});

describe('TCP', () => {
  it('refuses plain TCP unless --tls=false asks for it', async () => {
    const port = await freePort();
    const d = Berthd.spawn({ args: ['-H', `tcp://127.0.0.1:${port}`] });
    const { code } = await d.exited;
    assert.equal(code, 1);
    assert.match(d.log, /refusing to serve tcp:\/\/127\.0\.0\.1:\d+ without TLS/);
  });

  it('serves plain TCP with --tls=false, with a warning in the log and in docker info', async () => {
    const port = await freePort();
    const d = await Berthd.start({ args: ['-H', `tcp://127.0.0.1:${port}`, '--tls=false'] });
    try {
      assert.match(d.log, /without TLS gives root access/);
      const info = (await request({ host: '127.0.0.1', port }, 'GET', '/info')).json() as { Warnings: string[] };
      assert.ok(info.Warnings.includes(`WARNING: API is accessible on http://127.0.0.1:${port} without encryption.`));
      const cli = await dockerCli(['version', '--format', '{{.Server.Version}}'], { env: { DOCKER_HOST: `tcp://127.0.0.1:${port}`, DOCKER_CONFIG: d.dir } });
      assert.equal(cli.code, 0, cli.stderr);
    } finally {
      await d.stop();
    }
  });
});

describe('TLS with --tlsverify', () => {
  let tls: TlsFixtures;
  let port: number;
  let d: Berthd;

  before(async () => {
    tls = makeTlsFixtures(tempDir('berth-tls-'));
    port = await freePort();
    d = await Berthd.start({
      args: ['-H', `tcp://127.0.0.1:${port}`, '--tlsverify', '--tlscacert', tls.ca, '--tlscert', tls.serverCert, '--tlskey', tls.serverKey],
    });
  });
  after(() => d.stop());

  it('serves a client whose certificate the CA signed', async () => {
    const r = await request({ host: '127.0.0.1', port, tls: { ca: readFileSync(tls.ca), cert: readFileSync(tls.clientCert), key: readFileSync(tls.clientKey) } }, 'GET', '/_ping');
    assert.equal(r.status, 200);
  });

  it('refuses a client without a certificate at the handshake', async () => {
    await assert.rejects(request({ host: '127.0.0.1', port, tls: { ca: readFileSync(tls.ca) } }, 'GET', '/_ping'));
  });

  it('refuses a client whose certificate another CA signed', async () => {
    await assert.rejects(
      request({ host: '127.0.0.1', port, tls: { ca: readFileSync(tls.ca), cert: readFileSync(tls.rogueClientCert), key: readFileSync(tls.rogueClientKey) } }, 'GET', '/_ping'),
    );
  });

  it('works with the docker CLI in --tlsverify mode', async () => {
    const cli = await dockerCli(
      ['--tlsverify', '--tlscacert', tls.ca, '--tlscert', tls.clientCert, '--tlskey', tls.clientKey, '-H', `tcp://127.0.0.1:${port}`, 'version', '--format', '{{.Server.APIVersion}}'],
      { env: { DOCKER_CONFIG: tls.dir } },
    );
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(cli.stdout.trim(), '1.41');
  });
});
