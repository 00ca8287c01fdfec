/**
 * The indexed stand-in for a trace id: its first 48 bits as an integer. Trace ids are random, so an index on them
 * takes inserts at random places; on the 32-character text (behind the project id) that index was about half of the
 * cost of writing a span and outgrew SQLite's page cache first. A 6-byte integer makes entries about six times
 * smaller. Lookups filter on both the key and the full id, so key collisions cost nothing but a row read.
 */
export function traceKey(traceId: string): number {
  return parseInt(traceId.slice(0, 12), 16);
}
