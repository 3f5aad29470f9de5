// What berth keeps of a volume, whatever its driver: one JSON file per volume (volume-records.ts).
// Labels and options are kept as they were sent: null when left out, {} when sent empty, as
// dockerd shows them.
export interface VolumeRecord {
  name: string;
  driver: string;
  /** RFC 3339 to the second, when berth made it (dockerd shows its _data's change time instead, which moves as files come and go) */
  createdAt: string;
  labels: Record<string, string> | null;
  /** the driver options given at create */
  options: Record<string, string> | null;
  /** `local` or `global`, from the driver's capabilities at create */
  scope: 'local' | 'global';
}

/** dockerd's CreatedAt: RFC 3339 to the second. */
export function rfc3339Seconds(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
