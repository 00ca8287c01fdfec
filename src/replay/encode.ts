import type { ReplayChunkFields } from '../../wire/replay';
import type { ReplayIdentity } from './chunk-buffer';

/** The JSON array of already serialized events: each event is serialized once, when it is recorded. */
export function eventsJson(events: readonly string[]): string {
  return `[${events.join(',')}]`;
}

/**
 * Body of `POST /ingest/replay/chunk`: the chunk's fields, then its events: the worker's base64 gzip of them with
 * their node ids delta-encoded (`worker`), else `events`, their JSON array, inline. `timestamps` are the events' own,
 * so the time range is right in any order.
 */
export function chunkBody(
  serviceName: string,
  replay: ReplayIdentity,
  seq: number,
  timestamps: readonly number[],
  events: string,
  worker = false,
): string {
  let startTs = Infinity;
  let endTs = -Infinity;
  for (const ts of timestamps) {
    if (ts < startTs) startTs = ts;
    if (ts > endTs) endTs = ts;
  }
  const fields: ReplayChunkFields = {
    serviceName,
    sessionId: replay.sessionId,
    replayId: replay.replayId,
    seq,
    startTs,
    endTs,
    eventCount: timestamps.length,
  };
  return `${JSON.stringify(fields).slice(0, -1)},${worker ? `"ids":"delta","encoding":"gzip","data":"${events}"` : `"events":${events}`}}`;
}

/** Body of `POST /ingest/replay/recipes` from steps serialized when they were recorded. */
export function recipesBody(serviceName: string, replay: ReplayIdentity, steps: readonly string[]): string {
  const head = JSON.stringify({ serviceName, sessionId: replay.sessionId, replayId: replay.replayId });
  return `${head.slice(0, -1)},"steps":[${steps.join(',')}]}`;
}
