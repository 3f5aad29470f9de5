// berth's volumes in the shape of the wire.
import type { VolumeView } from '../../../volume/volume-service.js';
import type { Volume } from '../../types/volume.js';

export function toVolume(v: VolumeView): Volume {
  return {
    ...(v.createdAt ? { CreatedAt: v.createdAt } : {}),
    Driver: v.record.driver,
    Labels: v.record.labels,
    Mountpoint: v.mountpoint,
    Name: v.record.name,
    Options: v.record.options,
    Scope: v.record.scope,
    ...(v.status ? { Status: v.status } : {}),
  };
}
