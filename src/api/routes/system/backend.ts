// What the System routes need from the engine.
import type { EngineEvent } from '../../../events/event.js';
import type { FilterArgs } from '../../../lib/filters.js';
import type { InfoFacts, VersionFacts } from '../../../system/system-service.js';

export interface EventStream extends AsyncIterable<EngineEvent> {
  close(): void;
}

export interface SystemBackend {
  version(): Promise<VersionFacts>;
  info(): Promise<InfoFacts>;
  /** Past events matching the filters between since and until, and the live stream from now on. */
  subscribeEvents(options: { sinceNanos?: bigint; untilNanos?: bigint; filters: FilterArgs }): { past: EngineEvent[]; live: EventStream };
}
