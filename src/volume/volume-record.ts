// What berth keeps of a volume, whatever its driver: one JSON file per volume (volume-records.ts).
// Labels and options are kept as they were sent: null when left out, {} when sent empty, as
// dockerd shows them. CreatedAt is not kept: the driver tells it (local-driver.ts).
export interface VolumeRecord {
  name: string;
  driver: string;
  labels: Record<string, string> | null;
  /** the driver options given at create */
  options: Record<string, string> | null;
  /** `local` or `global`, from the driver's capabilities at create */
  scope: 'local' | 'global';
}
