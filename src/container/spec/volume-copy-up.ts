// The image's content under a volume's destination copied into the volume, as dockerd's
// populateVolumes does at create (v20.10 container.CopyImagePathContent, copyExistingContents):
// only into an empty volume (the volume area checks, and marks the copy so a crash can't leave a
// half-filled volume that passes for a full one), with owners, modes, times, links and xattrs
// kept, and the volume's own directory then given the owner and mode of the image's.
import { chmodSync, chownSync, readdirSync, statSync } from 'node:fs';
import { runCommand } from '../../runtime/child-process.js';
import type { ContainerVolumes } from '../container-volumes.js';
import { resolveInRoot } from './in-root-path.js';
import type { MountPoint } from './resolve-mounts.js';

/** an image's directory of gigabytes on a slow disk; a copy that hangs still ends */
const COPY_TIMEOUT_MS = 30 * 60_000;

/** Copies into each volume marked copyData; the caller runs it once, with the container's root filesystem mounted at rootfs. */
export async function copyImageContentToVolumes(rootfs: string, mountPoints: readonly MountPoint[], volumes: Pick<ContainerVolumes, 'copyUpInto'>): Promise<void> {
  for (const m of mountPoints) {
    if (m.Type !== 'volume' || !m.copyData || m.Name === undefined) continue;
    const source = resolveInRoot(rootfs, m.Destination);
    let st;
    try {
      st = statSync(source);
    } catch {
      continue; // nothing in the image there
    }
    if (!st.isDirectory()) continue;
    await volumes.copyUpInto(m.Name, async (dir) => {
      if (readdirSync(source).length > 0) {
        // cp -a keeps what tar would: owners, modes, times, links, xattrs. It dies with berthd
        // (setpriv's parent-death signal): one that outlived a crash would go on filling the volume
        // after the next start emptied it, and a part of the image would pass for the whole
        await runCommand('setpriv', ['--pdeathsig', 'KILL', '--', 'cp', '-a', '--', `${source}/.`, `${dir}/`], { timeoutMs: COPY_TIMEOUT_MS });
      }
      chownSync(dir, st.uid, st.gid);
      chmodSync(dir, st.mode & 0o7777);
    });
  }
}
