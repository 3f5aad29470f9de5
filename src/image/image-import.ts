// POST /images/create?fromSrc=: an image of one layer from a root filesystem tar, read from the
// session's input ("-") or fetched from an http(s) URL. The parameters are checked before the
// session exists, so a bad name, tag, change, platform or URL is a status code, not in-band.
import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import type { EventBus } from '../events/event-bus.js';
import { invalidParameter } from '../errors.js';
import type { ProgressSink, StreamSession } from '../lib/stream-session.js';
import { BERTH_VERSION } from '../version.js';
import { applyChanges, parseChanges } from './config-changes.js';
import { sha256Digest } from './digest.js';
import { parseImageConfig } from './image-config.js';
import type { ImageStore } from './image-store.js';
import { parsePlatform } from './platform.js';
import { familiarString, taggedReference } from './reference.js';

export interface ImportOptions {
  /** Where the root filesystem comes from: "-" for the session's input, or a URL. */
  sourceName: string;
  repo: string;
  tag: string;
  message: string;
  changes: string[];
  /** os[/arch[/variant]]; empty for the daemon's own. */
  platform: string;
}

export function imageImport(deps: { store: ImageStore; events: EventBus }, opts: ImportOptions): StreamSession<ProgressSink> {
  const { store, events } = deps;
  const ref = opts.repo === '' ? undefined : taggedReference(opts.repo, opts.tag);
  const changes = parseChanges(opts.changes);
  const platform = parsePlatform(opts.platform);
  const url = opts.sourceName === '-' ? undefined : sourceUrl(opts.sourceName);
  return {
    async run({ out, input, signal }) {
      let source: Readable;
      if (url !== undefined) source = await fetchBody(url, signal);
      else if (input !== undefined) source = input;
      else throw new Error('an import from "-" reads its tar from the session input');
      const id = await store.withLease(async (lease) => {
        const layer = await store.addLayer(lease, null, undefined, { open: () => source }, signal);
        const created = new Date().toISOString();
        const comment = opts.message || `Imported from ${opts.sourceName}`;
        const config = {
          architecture: platform.architecture,
          ...(platform.variant ? { variant: platform.variant } : {}),
          comment,
          config: applyChanges({}, changes),
          container_config: {},
          created,
          docker_version: `berth ${BERTH_VERSION}`,
          history: [{ created, comment }],
          os: platform.os,
          rootfs: { type: 'layers', diff_ids: [layer.diffId] },
        };
        const configBytes = Buffer.from(JSON.stringify(config));
        const id = sha256Digest(configBytes);
        await store.commitImage(lease, id, configBytes, parseImageConfig(configBytes));
        await store.name(id, ref === undefined ? [] : [ref]);
        events.publish('image', 'import', { id, attributes: { name: ref !== undefined ? familiarString(ref) : id } });
        return id;
      });
      await out.status(id);
    },
  };
}

/** fromSrc as dockerd reads it: a URL, http:// when it names no scheme. */
function sourceUrl(fromSrc: string): URL {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(fromSrc) ? fromSrc : `http://${fromSrc}`);
  } catch {
    throw invalidParameter(`invalid fromSrc URL: ${fromSrc}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidParameter(`fromSrc must be "-" or an http(s) URL, not ${fromSrc}`);
  return url;
}

/** The body of an HTTP(S) GET of the URL. */
async function fetchBody(url: URL, signal: AbortSignal): Promise<Readable> {
  const res = await fetch(url, { signal });
  if (!res.ok || res.body === null) throw invalidParameter(`fetching ${url.href} answered ${res.status} ${res.statusText}`);
  return Readable.fromWeb(res.body as ReadableStream<Uint8Array>);
}
