import { DomainError } from '../shared/domain-errors';
import { decodeChunkEvents } from '../ingest/replay';

/** A stored chunk's events as a read serves them; `unreadable` (only then present) says why there are none. */
export interface StoredEvents {
  events: unknown[];
  unreadable?: string;
}

/**
 * The events of a stored chunk, checked as ingest checks them (decodeChunkEvents). A chunk stored before a check
 * existed (event data nested deeper than JSON.stringify can serialise, say) would otherwise fail every read of its
 * session with a 500: such a chunk is served with no events and `unreadable` saying why, and the others play on.
 */
export function storedEvents(encoding: 'gzip' | 'json', data: Uint8Array): StoredEvents {
  // No chunk is stored empty (it holds at least one event): an empty payload is an object storage miss (chunk-store.ts).
  if (data.byteLength === 0)
    return { events: [], unreadable: 'this stored chunk cannot be served, its payload is missing from object storage' };
  try {
    return { events: decodeChunkEvents(encoding, data) };
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return { events: [], unreadable: `this stored chunk cannot be served, its events are left out: ${err.message}` };
  }
}
