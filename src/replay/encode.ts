import type { ReplayChunk } from '../../wire/replay';
import { gzipText } from '../pipeline/gzip';
import type { ReplayIdentity } from './chunk-buffer';

/** A chunk payload (wire/replay.ts `encoding` and `data`). */
export interface EncodedEvents {
  readonly encoding: 'gzip' | 'json';
  readonly data: string;
}

/**
 * Chunk payload encoding: gzip through `CompressionStream` (off the main thread), then base64; plain JSON where
 * compression is unavailable.
 */
export async function encodeEvents(json: string): Promise<EncodedEvents> {
  const bytes = await gzipText(json);
  return bytes === undefined ? { encoding: 'json', data: json } : { encoding: 'gzip', data: toBase64(bytes) };
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  // Bounded slices: String.fromCharCode with a spread of a whole chunk would overflow the call stack.
  for (let offset = 0; offset < bytes.length; offset += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(offset, offset + 0x8000));
  }
  return btoa(binary);
}

/** The JSON array of already serialized events: each event is serialized once, when it is recorded. */
export function eventsJson(events: readonly string[]): string {
  return `[${events.join(',')}]`;
}

/** Body of `POST /ingest/replay/chunk`. `timestamps` are the events' own, so the time range is right in any order. */
export function chunkBody(
  serviceName: string,
  replay: ReplayIdentity,
  seq: number,
  timestamps: readonly number[],
  payload: EncodedEvents,
): string {
  let startTs = Infinity;
  let endTs = -Infinity;
  for (const ts of timestamps) {
    if (ts < startTs) startTs = ts;
    if (ts > endTs) endTs = ts;
  }
  const chunk: ReplayChunk = {
    serviceName,
    sessionId: replay.sessionId,
    replayId: replay.replayId,
    seq,
    startTs,
    endTs,
    eventCount: timestamps.length,
    encoding: payload.encoding,
    data: payload.data,
  };
  return JSON.stringify(chunk);
}

/** Body of `POST /ingest/replay/recipes` from steps serialized when they were recorded. */
export function recipesBody(serviceName: string, replay: ReplayIdentity, steps: readonly string[]): string {
  const head = JSON.stringify({ serviceName, sessionId: replay.sessionId, replayId: replay.replayId });
  return `${head.slice(0, -1)},"steps":[${steps.join(',')}]}`;
}
