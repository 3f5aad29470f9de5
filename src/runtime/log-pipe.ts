// The pipe a container's output reaches berthd through. conmon writes its k8s-file records into a
// fifo in the run's bundle in place of a file, and berthd writes them to the log in the driver's
// own format (container/logs/log-drain.ts). Because the pipe blocks when berthd does not read it, a chatty
// container is held to the pace of the log's writing and rotation: the files can't outgrow
// max-size × max-file, as with dockerd, whose logger blocks its container's writes the same way.
//
// A keeper process (`sleep infinity` with the fifo open read-write on its stdin) holds the pipe
// from before conmon opens it until berthd has read the run's last bytes, so that neither end
// sees the other go: conmon never gets EPIPE while berthd is down or restarting (its writes wait
// in the pipe, then block, as a container's do under a stopped dockerd), and output still in the
// pipe when conmon exits is kept for berthd to read. Once the run has ended, berthd kills the
// keeper and reads on to the end of the pipe.
import { closeSync, constants as fsConstants, openSync } from 'node:fs';
import { readdir, readFile, readlink, rm } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { runCommand } from './child-process.js';

export function logFifoPath(bundleDir: string): string {
  return path.join(bundleDir, 'log.fifo');
}

function keeperPidFile(bundleDir: string): string {
  return path.join(bundleDir, 'log-keeper.pid');
}

/**
 * Makes the run's fifo and its keeper; conmon may open the fifo from then on. One command does
 * it all: a shell makes the fifo, opens it read-write (so the open neither blocks nor needs a
 * reader), leaves the keeper behind with it on its stdin, in a session of its own (setsid, so that
 * a signal to berthd's group spares it), and writes the keeper's pid file once the keeper holds
 * the fifo (what releaseLogPipe checks before it kills). The shell writes the file itself, so that
 * a berthd killed meanwhile leaves no keeper without one (the next berthd's drain would wait for
 * a pipe nobody ends).
 */
export async function makeLogPipe(bundleDir: string): Promise<string> {
  const fifo = logFifoPath(bundleDir);
  const script = [
    'umask 077',
    'mkfifo "$1" && exec 3<>"$1" || exit',
    'setsid sleep infinity <&3 3<&- >/dev/null 2>&1 &',
    'while [ "$(readlink /proc/$!/fd/0)" != "$1" ]; do kill -0 $! || exit; done',
    'echo $! >"$2"',
  ].join('\n');
  await runCommand('sh', ['-c', script, 'sh', fifo, keeperPidFile(bundleDir)]);
  return fifo;
}

/** The fifo's read end, as a stream; it ends once conmon and the keeper have both let go. */
export function openLogPipe(bundleDir: string): net.Socket {
  const fd = openSync(logFifoPath(bundleDir), fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
  return new net.Socket({ fd, readable: true, writable: false });
}

/**
 * Ends the keeper, if it is still there (and still the keeper: pids are reused), and makes sure
 * the reader hears of the end. Linux raises HUP on a FIFO's read end only when the last writer
 * to go had opened it after the reader did; the keeper and conmon opened it before (a berthd
 * restarted after the run ended opens it last of all), so an empty pipe would never wake the
 * reader. A writer opened and closed here, after the reader, makes the last close raise it.
 */
export async function releaseLogPipe(bundleDir: string): Promise<void> {
  const file = keeperPidFile(bundleDir);
  const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
  if (Number.isSafeInteger(pid) && pid > 0) {
    const holds = await readlink(`/proc/${pid}/fd/0`).catch(() => undefined);
    if (holds === logFifoPath(bundleDir)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  }
  try {
    closeSync(openSync(logFifoPath(bundleDir), fsConstants.O_WRONLY | fsConstants.O_NONBLOCK));
  } catch {
    // no reader (ENXIO) or no pipe: nobody to tell
  }
  await rm(file, { force: true });
}

/**
 * Ends the keepers of fifos under `bundlesRoot` whose container is not in `live`: those a kill of
 * berthd orphaned between a keeper's start and its pid file, or whose bundle went meanwhile.
 */
export async function sweepLogKeepers(bundlesRoot: string, live: ReadonlySet<string>): Promise<void> {
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    try {
      if ((await readFile(`/proc/${pid}/cmdline`, 'latin1')) !== 'sleep\0infinity\0') continue;
      const fifo = (await readlink(`/proc/${pid}/fd/0`)).replace(/ \(deleted\)$/, '');
      if (!fifo.startsWith(`${bundlesRoot}/`) || path.basename(fifo) !== 'log.fifo') continue;
      if (!live.has(path.basename(path.dirname(fifo)))) process.kill(Number(pid), 'SIGKILL');
    } catch {
      // gone meanwhile, or not ours to look at
    }
  }
}
