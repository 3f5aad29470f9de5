// An event on the engine's bus, in berth's own terms; the wire shape lives in the system routes' to-api.ts.

export type EventType = 'container' | 'image' | 'volume' | 'network' | 'daemon' | 'plugin' | 'node' | 'service' | 'secret' | 'config' | 'builder';

export interface EventActor {
  id: string;
  attributes: Readonly<Record<string, string>>;
}

export interface EngineEvent {
  type: EventType;
  action: string;
  actor: EventActor;
  scope: 'local' | 'swarm';
  /** Nanoseconds since the epoch; strictly increasing along the bus. */
  timeNanos: bigint;
}
