// Go's encoding/json puts a JSON key into the struct field of that exact name, else into the one
// whose name it equals without case, and decodes keys in order, so a later key for a field wins.
// Clients count on it: docker-py sends exec create's DetachKeys as "detachKeys".

/** A decoded JSON body with its keys renamed to the fields Go would decode them into; anything but an object as is. */
export function matchGoFields(body: unknown, fieldNames: readonly string[]): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const byFoldedName = new Map(fieldNames.map((name) => [name.toLowerCase(), name]));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const name = fieldNames.includes(key) ? key : byFoldedName.get(key.toLowerCase());
    out[name ?? key] = value;
  }
  return out;
}
