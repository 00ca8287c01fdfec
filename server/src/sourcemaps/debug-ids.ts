/**
 * Debug IDs (TC39 source-map debug ID convention, docs/source-maps.md): a UUID the build writes into each emitted file
 * (`//# debugId=<id>`) and into its map (`debugId`, or `debug_id` from older Sentry tools). Compared in lowercase.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The id in its canonical (lowercase) form, or null when `value` is not a UUID. */
export function normalizeDebugId(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const id = value.trim().toLowerCase();
  return UUID.test(id) ? id : null;
}

/** The `//# debugId=` comment of an emitted file; the last one wins, as for `sourceMappingURL`. */
export function debugIdComment(code: string): string | undefined {
  const all = [...code.matchAll(/^\s*\/\/[#@] debugId=(\S+)\s*$/gm)];
  return all[all.length - 1]?.[1];
}

/**
 * URL → debug ID from the `svc.exception.debug_ids` attribute: entries `"<debug-id> <script-url>"`. Entries that are
 * not of that form are skipped: the attribute comes from the page, so nothing in it is trusted.
 */
export function parseDebugIds(value: unknown): Map<string, string> {
  const ids = new Map<string, string>();
  if (!Array.isArray(value)) return ids;
  for (const entry of value) {
    if (typeof entry !== 'string' || entry[36] !== ' ') continue;
    const id = normalizeDebugId(entry.slice(0, 36));
    const url = entry.slice(37).trim();
    if (id && url) ids.set(url, id);
  }
  return ids;
}
