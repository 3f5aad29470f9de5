// -H fd://: berthd serves the listening sockets systemd passes (socket activation). The test
// plays systemd: it opens the sockets, passes them from fd 3 on, and sets LISTEN_FDS and LISTEN_PID.
import assert from 'node:assert/strict';
import { existsSync, renameSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { it } from 'node:test';
import { Berthd, tempDir } from '../../helpers/berthd.js';
import { request } from '../../helpers/http.js';

/**
 * A listening unix socket at `socketPath` whose fd is handed to berthd: the test process closes its
 * own copy once berthd has it, so that only berthd accepts. (libuv unlinks a socket's path when it
 * closes it, so the socket is bound under another name and moved into place first.)
 */
async function activationSocket(socketPath: string): Promise<{ fd: number; release(): Promise<void> }> {
  const bound = `${socketPath}.bound`;
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(bound, resolve));
  const fd = (server as unknown as { _handle: { fd: number } })._handle.fd;
  return {
    fd,
    release: async () => {
      renameSync(bound, socketPath);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

it('serves the sockets systemd passed, with -H fd://, and leaves them to systemd when it stops', async () => {
  const dir = tempDir();
  const first = path.join(dir, 'first.sock');
  const second = path.join(dir, 'second.sock');
  const sockets = [await activationSocket(first), await activationSocket(second)];
  const d = Berthd.spawn({ socket: first, noDefaultHost: true, args: ['-H', 'fd://'], activatedFds: sockets.map((s) => s.fd), netns: 'own' });
  for (const s of sockets) await s.release();
  try {
    await d.waitReady();
    assert.equal((await request({ socketPath: second }, 'GET', '/_ping')).body, 'OK');
    const cli = await d.docker(['version', '--format', '{{.Server.APIVersion}}']);
    assert.equal(cli.stdout.trim(), '1.41', cli.stderr);
    assert.match(d.log, /API listen on fd:\/\/3/);
    assert.match(d.log, /API listen on fd:\/\/4/);
  } finally {
    await d.stop();
  }
  // the socket units own the paths: a stop leaves them for the next start
  assert.ok(existsSync(first) && existsSync(second));
});

it('-H fd://N serves the one socket at fd N', async () => {
  const dir = tempDir();
  const first = path.join(dir, 'first.sock');
  const second = path.join(dir, 'second.sock');
  const sockets = [await activationSocket(first), await activationSocket(second)];
  const d = Berthd.spawn({ socket: second, noDefaultHost: true, args: ['-H', 'fd://4'], activatedFds: sockets.map((s) => s.fd), netns: 'own' });
  for (const s of sockets) await s.release();
  try {
    await d.waitReady();
    assert.doesNotMatch(d.log, /fd:\/\/3/);
  } finally {
    await d.stop();
  }
});

it('without socket activation, or with too few sockets, fd:// stops berthd with dockerd\'s message', async () => {
  const alone = Berthd.spawn({ noDefaultHost: true, args: ['-H', 'fd://'], netns: 'own' });
  assert.equal((await alone.exited).code, 1);
  assert.match(alone.log, /no sockets found via socket activation: make sure the service was started by systemd/);

  const dir = tempDir();
  const socket = await activationSocket(path.join(dir, 'one.sock'));
  const short = Berthd.spawn({ noDefaultHost: true, args: ['-H', 'fd://4'], activatedFds: [socket.fd], netns: 'own' });
  await socket.release();
  assert.equal((await short.exited).code, 1);
  assert.match(short.log, /too few socket activated files passed in by systemd/);

  const bad = Berthd.spawn({ noDefaultHost: true, args: ['-H', 'fd://x'], netns: 'own' });
  assert.equal((await bad.exited).code, 1);
  assert.match(bad.log, /failed to parse systemd fd address: should be a number: x/);
});
