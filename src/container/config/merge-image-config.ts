// The image's runtime config merged under the container's, as dockerd's `merge` (daemon/commit.go)
// and mergeAndVerifyConfig do it; inspect shows the merged result. Shell and OnBuild are not taken
// from the image: dockerd leaves them as the request gave them.
import { invalidParameter } from '../../errors.js';
import type { ContainerConfig } from './types.js';

/** The `config` object of an image's configuration, as far as a container takes from it. */
export type ImageRuntimeConfig = Pick<
  ContainerConfig,
  'User' | 'ExposedPorts' | 'Env' | 'Labels' | 'Cmd' | 'ArgsEscaped' | 'Entrypoint' | 'Healthcheck' | 'WorkingDir' | 'Volumes' | 'StopSignal' | 'Shell' | 'OnBuild'
>;

/** Merges in place; throws "No command specified" when neither side gives a command. */
export function mergeImageConfig(c: ContainerConfig, image: ImageRuntimeConfig | null): void {
  if (image) mergeFromImage(c, image);
  // an entrypoint of one empty string resets it to none
  if (c.Entrypoint?.length === 1 && c.Entrypoint[0] === '') c.Entrypoint = null;
  if (!c.Entrypoint?.length && !c.Cmd?.length) throw invalidParameter('No command specified');
}

/** dockerd's `merge`, in place: what `c` leaves unset comes from `image` (a commit merges the container's config under the given one). */
export function mergeFromImage(c: ContainerConfig, image: ImageRuntimeConfig): void {
  if (!c.User) c.User = image.User ?? '';
  if (!c.ExposedPorts || Object.keys(c.ExposedPorts).length === 0) c.ExposedPorts = image.ExposedPorts;
  else c.ExposedPorts = { ...image.ExposedPorts, ...c.ExposedPorts };

  if (!c.Env?.length) c.Env = image.Env ?? null;
  else {
    const keys = new Set(c.Env.map(envKey));
    c.Env = [...c.Env, ...(image.Env ?? []).filter((e) => !keys.has(envKey(e)))];
  }

  c.Labels = { ...image.Labels, ...c.Labels };

  // a command of the container's own replaces the image's; so does an entrypoint of its own
  if (!c.Entrypoint?.length) {
    if (!c.Cmd?.length) {
      c.Cmd = image.Cmd ?? null;
      c.ArgsEscaped = image.ArgsEscaped;
    }
    if (c.Entrypoint === undefined || c.Entrypoint === null) c.Entrypoint = image.Entrypoint ?? null;
  }

  if (image.Healthcheck) {
    if (!c.Healthcheck) c.Healthcheck = { ...image.Healthcheck };
    else {
      const h = c.Healthcheck;
      const i = image.Healthcheck;
      c.Healthcheck = {
        Test: h.Test?.length ? h.Test : i.Test,
        Interval: h.Interval || i.Interval,
        Timeout: h.Timeout || i.Timeout,
        StartPeriod: h.StartPeriod || i.StartPeriod,
        Retries: h.Retries || i.Retries,
      };
    }
  }

  if (!c.WorkingDir) c.WorkingDir = image.WorkingDir ?? '';
  if (!c.Volumes || Object.keys(c.Volumes).length === 0) c.Volumes = image.Volumes ?? null;
  else c.Volumes = { ...c.Volumes, ...image.Volumes };
  if (!c.StopSignal) c.StopSignal = image.StopSignal;
}

function envKey(e: string): string {
  const i = e.indexOf('=');
  return i < 0 ? e : e.slice(0, i);
}
