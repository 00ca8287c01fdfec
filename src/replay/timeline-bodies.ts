import { INGEST_PATHS } from '../../wire/paths';
import { MAX_REQUEST_BYTES } from '../pipeline/keepalive-budget';
import type { Leftover } from '../pipeline/leftovers';
import { splitIntoChunks } from '../pipeline/split';
import type { ChunkBuffer, PendingChunk } from './chunk-buffer';
import { chunkBody, eventsJson, recipesBody } from './encode';

/** A seq no chunk reaches: unload bodies are sized with it, then built with their real seq (never longer). */
const SIZING_SEQ = Number.MAX_SAFE_INTEGER;

/** A chunk posted now: its seq, and the local-storage copy an unload made of it. */
export interface InFlight {
  readonly chunk: PendingChunk;
  readonly seq: number;
  savedKey?: string | undefined;
}

/** A chunk's body with its events as JSON, uncompressed (the transport or the fixture compresses). */
export const jsonChunkBody = (serviceName: string, chunk: PendingChunk, seq: number): string =>
  chunkBody(serviceName, chunk.replay, seq, chunk.timestamps, eventsJson(chunk.items));

/**
 * Everything buffered as requests of at most ~60 KB for a page that may be closing, numbered as if sent now; first a
 * copy of the chunk being posted (`flight`, unless an earlier unload saved it), whose ordinary request may not outlive
 * the page. The buffers are emptied.
 */
export function unloadRequests(
  serviceName: string,
  events: ChunkBuffer,
  steps: ChunkBuffer,
  flight: InFlight | undefined,
): Leftover[] {
  const requests: Leftover[] = [];
  if (flight !== undefined) {
    requests.push({ path: INGEST_PATHS.replayChunk, body: jsonChunkBody(serviceName, flight.chunk, flight.seq) });
  }
  for (const chunk of events.takeAll()) {
    const indices = chunk.items.map((_, i) => i);
    const encode = (seq: number) => (part: readonly number[]) =>
      chunkBody(
        serviceName,
        chunk.replay,
        seq,
        part.map((i) => chunk.timestamps[i]!),
        eventsJson(part.map((i) => chunk.items[i]!)),
      );
    for (const part of splitIntoChunks(indices, encode(SIZING_SEQ), MAX_REQUEST_BYTES)) {
      requests.push({ path: INGEST_PATHS.replayChunk, body: encode(chunk.replay.nextSeq++)(part.items) });
    }
  }
  for (const batch of steps.takeAll()) {
    const encode = (part: readonly string[]) => recipesBody(serviceName, batch.replay, part);
    for (const part of splitIntoChunks(batch.items, encode, MAX_REQUEST_BYTES)) {
      requests.push({ path: INGEST_PATHS.replayRecipes, body: part.body });
    }
  }
  return requests;
}

/** Everything buffered as `[path, body]` requests (Timeline.drain): one per chunk, numbered as if sent now. */
export function drainRequests(serviceName: string, events: ChunkBuffer, steps: ChunkBuffer): Array<[string, string]> {
  return [
    ...events
      .takeAll()
      .map((c): [string, string] => [INGEST_PATHS.replayChunk, jsonChunkBody(serviceName, c, c.replay.nextSeq++)]),
    ...steps
      .takeAll()
      .map((b): [string, string] => [INGEST_PATHS.replayRecipes, recipesBody(serviceName, b.replay, b.items)]),
  ];
}
