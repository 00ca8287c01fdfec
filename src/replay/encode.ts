import type { ReplayChunkFields } from '../../wire/replay';
import type { ReplayIdentity } from './chunk-buffer';

/** The JSON array of already serialized events: each event is serialized once, when it is recorded. */
export function eventsJson(events: readonly string[]): string {
  return `[${events.join(',')}]`;
}

/**
 * Body of `POST /ingest/replay/chunk`: the chunk's fields, then `events`, the JSON array of its events (`ids: "delta"`
 * when the worker delta-encoded their node ids). `timestamps` are the events' own, so the time range is right in any
 * order.
 */
export function chunkBody(
  serviceName: string,
  replay: ReplayIdentity,
  seq: number,
  timestamps: readonly number[],
  events: string,
  idDeltas = false,
): string {
  let startTs = Infinity;
  let endTs = -Infinity;
  for (const ts of timestamps) {
    if (ts < startTs) startTs = ts;
    if (ts > endTs) endTs = ts;
  }
  const fields: ReplayChunkFields = { serviceName, sessionId: replay.sessionId, replayId: replay.replayId, seq, startTs, endTs, eventCount: timestamps.length };
  return `${JSON.stringify(fields).slice(0, -1)},${idDeltas ? '"ids":"delta",' : ''}"events":${events}}`;
}

/** Body of `POST /ingest/replay/recipes` from steps serialized when they were recorded. */
export function recipesBody(serviceName: string, replay: ReplayIdentity, steps: readonly string[]): string {
  const head = JSON.stringify({ serviceName, sessionId: replay.sessionId, replayId: replay.replayId });
  return `${head.slice(0, -1)},"steps":[${steps.join(',')}]}`;
}
