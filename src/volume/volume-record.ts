// What berth keeps of a volume, whatever its driver: one JSON file per volume (volume-records.ts).
export interface VolumeRecord {
  name: string;
  driver: string;
  /** RFC 3339, seconds, as dockerd's CreatedAt */
  createdAt: string;
  labels: Record<string, string>;
  /** the driver options as given at create */
  options: Record<string, string>;
  /** `local` or `global`, from the driver's capabilities at create */
  scope: 'local' | 'global';
}
