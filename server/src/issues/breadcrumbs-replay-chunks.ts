import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { orderChunks, type OrderedChunk } from '../replay/chunk-order';
import { EventType, readEvent } from '../replay/export/rrweb';
import { chunkEvents, chunkIndex } from '../sessions/store';
import type { TimeWindow } from './breadcrumbs';

/** One decoded chunk: its place in its replay and its raw rrweb events. */
export interface DecodedChunk {
  seq: number;
  events: readonly unknown[];
}

/**
 * How far before the window a replay's chunks are read to find the full snapshot its DOM is rebuilt from: the
 * recorder takes one at least every 5 minutes (RECORDER_LIMITS.checkoutIntervalMs in src/replay/recorder.ts), and
 * the chunk holding it may have been sent up to one flush interval (5 s by default) later.
 */
const SNAPSHOT_LOOKBACK_MS = 5 * 60_000 + 5_000;
/** Stored bytes read before the window at most: bounds the work when a snapshot was lost or the pages are huge. */
const MAX_LOOKBACK_BYTES = 8_000_000;

/**
 * For each replay of the session that recorded something in `window`, its chunks from the one holding its latest
 * full snapshot before the window (when that is within the look-back bounds) to the last one that starts in the
 * window, decoded, in playback order. Only those chunks are decoded; the rest of the session is read as its index.
 */
export async function replayRuns(
  db: Kysely<Database>,
  projectId: string,
  sessionId: string,
  window: TimeWindow,
): Promise<DecodedChunk[][]> {
  const { chunks } = orderChunks(await chunkIndex(db, projectId, sessionId));
  const runs: DecodedChunk[][] = [];
  for (const replay of byReplay(chunks)) {
    const run = await decodeRun(db, projectId, replay, window);
    if (run.length > 0) runs.push(run);
  }
  return runs;
}

/** The chunks of each replay, in playback order (orderChunks lists a replay's chunks together). */
function byReplay(chunks: readonly OrderedChunk[]): OrderedChunk[][] {
  const replays: OrderedChunk[][] = [];
  for (const chunk of chunks) {
    const current = replays[replays.length - 1];
    if (current?.[0]!.replay_id === chunk.replay_id) current.push(chunk);
    else replays.push([chunk]);
  }
  return replays;
}

async function decodeRun(
  db: Kysely<Database>,
  projectId: string,
  replay: readonly OrderedChunk[],
  window: TimeWindow,
): Promise<DecodedChunk[]> {
  const overlaps = (c: OrderedChunk): boolean => c.end_ms >= window.fromMs && c.time_ms <= window.toMs;
  const first = replay.findIndex(overlaps);
  if (first < 0) return [];
  const run = await decode(db, projectId, replay.slice(first).filter(overlaps));
  let bytes = 0;
  for (let i = first - 1; i >= 0 && !holdsSnapshot(run[0]!); i--) {
    const chunk = replay[i]!;
    bytes += chunk.stored_bytes;
    if (chunk.end_ms < window.fromMs - SNAPSHOT_LOOKBACK_MS || bytes > MAX_LOOKBACK_BYTES) break;
    run.unshift(...(await decode(db, projectId, [chunk])));
  }
  return run;
}

async function decode(
  db: Kysely<Database>,
  projectId: string,
  chunks: readonly OrderedChunk[],
): Promise<DecodedChunk[]> {
  const events = await chunkEvents(
    db,
    projectId,
    chunks.map((c) => c.id),
  );
  return chunks.map((c) => ({ seq: c.seq, events: events.get(c.id)?.events ?? [] }));
}

/** A full snapshot opens the chunk it is in (the SDK's ChunkBuffer starts a new chunk at rrweb's Meta event). */
const holdsSnapshot = (chunk: DecodedChunk): boolean =>
  chunk.events.some((raw) => readEvent(raw)?.type === EventType.Meta);
