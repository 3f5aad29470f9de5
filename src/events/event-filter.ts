// Which events a subscriber wants, by the rules of dockerd's daemon/events/filter.go.
import type { FilterArgs } from '../lib/filters.js';
import type { EngineEvent, EventType } from './event.js';

/** Actions that match a filter value that is a prefix of them (`health_status: healthy` by `health_status`). */
const fuzzyActions = new Set(['health_status', 'exec_create', 'exec_start']);

/** Types whose events are matched by ID prefix or name when a filter key of that type is given. */
const namedTypes: EventType[] = ['daemon', 'container', 'plugin', 'volume', 'network', 'node', 'service', 'secret', 'config'];

export function eventMatches(filter: FilterArgs, ev: EngineEvent): boolean {
  return (
    matchAction(filter, ev) &&
    filter.exactMatch('type', ev.type) &&
    filter.exactMatch('scope', ev.scope) &&
    namedTypes.every((t) => filter.fuzzyMatch(t, ev.actor.id) || filter.fuzzyMatch(t, ev.actor.attributes.name ?? '')) &&
    matchImage(filter, ev) &&
    filter.matchKeyValues('label', ev.actor.attributes)
  );
}

function matchAction(filter: FilterArgs, ev: EngineEvent): boolean {
  if (filter.values('event').some((v) => fuzzyActions.has(v))) return filter.fuzzyMatch('event', ev.action);
  return filter.exactMatch('event', ev.action);
}

/** Image events by ID or name, and container events by the image they were made from, with or without a tag. */
function matchImage(filter: FilterArgs, ev: EngineEvent): boolean {
  const name = ev.actor.attributes[ev.type === 'image' ? 'name' : 'image'] ?? '';
  return [ev.actor.id, name, familiarName(ev.actor.id), familiarName(name)].some((s) => filter.exactMatch('image', s));
}

/** `docker.io/library/busybox:latest` → `busybox`: the repository without tag, digest or default registry. */
function familiarName(ref: string): string {
  let name = ref;
  const at = name.indexOf('@');
  if (at >= 0) name = name.slice(0, at);
  const colon = name.lastIndexOf(':');
  if (colon > name.lastIndexOf('/')) name = name.slice(0, colon);
  if (name.startsWith('docker.io/')) name = name.slice('docker.io/'.length);
  if (name.startsWith('library/') && name.indexOf('/', 'library/'.length) < 0) name = name.slice('library/'.length);
  return name;
}
