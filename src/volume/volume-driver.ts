// What the volume service asks of a driver: the local one (local-driver.ts) or a plugin's
// (plugin-driver.ts). The records, names and usage are the service's; a driver keeps the data.
export interface VolumeDriver {
  readonly name: string;
  /** `local` or `global`, as the driver's capabilities say */
  scope(): Promise<'local' | 'global'>;
  /** Checks the options and makes the volume. */
  create(name: string, options: Record<string, string> | null): Promise<void>;
  remove(name: string): Promise<void>;
  /** Where the volume is on the host for this mount (mountId names it for unmount); mounted if the driver mounts. */
  mount(name: string, mountId: string): Promise<string>;
  unmount(name: string, mountId: string): Promise<void>;
  /** What inspect shows of the volume as the driver sees it now (a plugin's VolumeDriver.Get). */
  describe(name: string): Promise<VolumeDescription>;
}

export interface VolumeDescription {
  /** where the volume is on the host; '' when the driver does not say */
  mountpoint: string;
  /** RFC 3339, when the driver says (a plugin's own CreatedAt) */
  createdAt?: string;
  status?: Record<string, unknown>;
}
