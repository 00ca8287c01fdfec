import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { orderChunks, pageOfChunks, positionOf, type ChunkPosition, type OrderedChunk } from '../replay/chunk-order';
import { EventType, readEvent } from '../replay/export/rrweb';
import { forEachBatch } from '../replay/export/stored-session';
import { invalid } from '../shared/domain-errors';
import { decodeCursor, encodeCursor } from '../shared/keyset';
import { iso } from '../shared/time';
import { chunkEvents, chunkIndex } from './store';

/**
 * One session's replays as the API serves them: their list, and their events page by page in playback order.
 */

/** A replay page also ends once its chunks hold this much as stored, so one answer stays a bounded size. */
export const PAGE_STORED_BYTES = 4_000_000;

/** The URL of the page a replay recorded: its rrweb Meta event's `href`. */
export function pageUrl(events: readonly unknown[]): string | null {
  for (const raw of events) {
    const event = readEvent(raw);
    if (event?.type === EventType.Meta && typeof event.data.href === 'string') return event.data.href;
  }
  return null;
}

/** A replay page's cursor: the position of its last chunk (replay start time, then `seq:replay id`). */
export const chunkCursor = (chunk: OrderedChunk): string => {
  const p = positionOf(chunk);
  return encodeCursor({ t: p.replayStart, k: `${p.seq}:${p.replayId}` });
};

/** The position a replay page's `cursor` parameter names; undefined without one. */
export function readChunkCursor(raw: string | undefined): ChunkPosition | undefined {
  const cursor = decodeCursor(raw, 'string');
  if (!cursor) return undefined;
  const match = /^(\d+):(.+)$/s.exec(cursor.k);
  if (!match) {
    throw invalid(
      'cursor is not a cursor this API returned (use next_cursor from the previous page)',
      'invalid_request',
      {
        field: 'cursor',
      },
    );
  }
  return { replayStart: cursor.t, replayId: match[2]!, seq: Number(match[1]) };
}

type Db = Kysely<Database>;

/** The session's replays ordered by start, each with the page it recorded first. */
export async function replaysOf(db: Db, projectId: string, sessionId: string) {
  const { replays } = orderChunks(await chunkIndex(db, projectId, sessionId));
  const firstUrls = new Map<number, string | null>();
  await forEachBatch(
    replays.map((r) => r.first_chunk_id),
    async (ids) => {
      for (const [id, stored] of await chunkEvents(db, projectId, ids)) firstUrls.set(id, pageUrl(stored.events));
    },
  );
  return replays.map((r) => ({
    replay_id: r.replay_id,
    start_time: iso(r.start_ms),
    end_time: iso(r.end_ms),
    chunk_count: r.chunk_count,
    event_count: r.event_count,
    first_url: firstUrls.get(r.first_chunk_id) ?? null,
  }));
}

/** One page of the session's rrweb events in playback order, after `cursor`, with the chunks they came from. */
export async function replayPage(
  db: Db,
  { projectId, sessionId }: { projectId: string; sessionId: string },
  cursor: ChunkPosition | undefined,
  limit: number,
) {
  const { chunks, gaps } = orderChunks(await chunkIndex(db, projectId, sessionId));
  const { page, more } = pageOfChunks(chunks, cursor, limit, PAGE_STORED_BYTES);
  const events = await chunkEvents(
    db,
    projectId,
    page.map((chunk) => chunk.id),
  );
  const last = page[page.length - 1];
  return {
    session_id: sessionId,
    events: page.flatMap((chunk) => events.get(chunk.id)?.events ?? []),
    chunks: page.map((chunk) => {
      const unreadable = events.get(chunk.id)?.unreadable;
      return {
        replay_id: chunk.replay_id,
        seq: chunk.seq,
        start_time: iso(chunk.time_ms),
        end_time: iso(chunk.end_ms),
        event_count: chunk.event_count,
        ...(unreadable !== undefined && { unreadable }),
      };
    }),
    gaps,
    next_cursor: more && last ? chunkCursor(last) : null,
  };
}
