// What the System routes need from the engine.
import type { EngineEvent } from '../../../events/event.js';
import type { ItemSink, StreamSession } from '../../../lib/stream-session.js';
import type { EventsRequest } from '../../../system/event-stream.js';
import type { DataUsage, InfoFacts, VersionFacts } from '../../../system/system-service.js';

export interface SystemBackend {
  version(): Promise<VersionFacts>;
  info(): Promise<InfoFacts>;
  /** Checks since and until (400); the session sends past events (when asked for) and live ones. */
  events(req: EventsRequest): StreamSession<ItemSink<EngineEvent>>;
  dataUsage(): Promise<DataUsage>;
}
