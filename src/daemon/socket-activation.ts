// systemd socket activation (sd_listen_fds): the listening sockets systemd passes from fd 3 on,
// LISTEN_FDS of them, for the process LISTEN_PID names. The variables are removed from the
// environment as they are read, as go-systemd's activation.Files(true) does for dockerd, so that
// no child process (conmon, runc, a CNI plugin) takes the sockets for its own.

/** The first fd systemd passes (SD_LISTEN_FDS_START). */
const LISTEN_FDS_START = 3;

/** The fds systemd passed to this process: none when it was not socket-activated. Call once, before any child is spawned. */
export function takeActivatedFds(env: NodeJS.ProcessEnv = process.env, pid = process.pid): number[] {
  const listenPid = env.LISTEN_PID;
  const listenFds = env.LISTEN_FDS;
  delete env.LISTEN_PID;
  delete env.LISTEN_FDS;
  delete env.LISTEN_FDNAMES;
  if (listenPid === undefined || Number(listenPid) !== pid) return [];
  const n = Number(listenFds);
  if (!Number.isInteger(n) || n < 1) return [];
  return Array.from({ length: n }, (_, i) => LISTEN_FDS_START + i);
}
