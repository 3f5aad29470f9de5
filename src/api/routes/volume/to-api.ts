// berth's volumes in the shape of the wire.
import type { VolumeView } from '../../../volume/volume-service.js';
import type { Volume } from '../../types/volume.js';

/** One object literal of one shape (a list of hundreds is written in a few milliseconds only so). */
export function toVolume(v: VolumeView): Volume {
  const volume: Volume = {
    CreatedAt: v.createdAt,
    Driver: v.record.driver,
    Labels: v.record.labels,
    Mountpoint: v.mountpoint,
    Name: v.record.name,
    Options: v.record.options,
    Scope: v.record.scope,
  };
  if (v.status) volume.Status = v.status;
  return volume;
}
