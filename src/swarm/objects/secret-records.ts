// Secrets and configs in the cluster store: one document per object under /secrets/<id> or
// /configs/<id>, and a name key in the same transaction (/names/<kind>s/<name>), so that a name is
// taken once whichever manager is asked. A secret's data is kept encrypted with the managers' data
// key (ca/sealing.ts); a config's as it is (dockerd shows it).
export type ObjectKind = 'secret' | 'config';

export interface DriverSpec {
  name: string;
  options: Record<string, string>;
}

export interface SecretSpec {
  name: string;
  labels: Record<string, string>;
  /** the data, base64 */
  data: string;
  templating?: DriverSpec;
}

export interface SecretRecord {
  id: string;
  kind: ObjectKind;
  createdAt: string;
  updatedAt: string;
  spec: Omit<SecretSpec, 'data'>;
  /** a secret's: its data encrypted with the managers' data key; a config's: its data, base64 */
  data: string;
}

export function prefixOf(kind: ObjectKind): string {
  return `/${kind}s/`;
}

export function nameKey(kind: ObjectKind, name: string): string {
  return `/names/${kind}s/${name}`;
}
