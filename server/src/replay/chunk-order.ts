/**
 * The order a session's replay chunks play in, computed from their index (no payloads): replays by the start time of
 * their first chunk (lowest seq), then by seq. Chunks stored twice under one (replay, seq) count once, and the seqs a
 * replay is missing below its highest are its gaps.
 */

/** A stored chunk without its payload. */
export interface ChunkEntry {
  id: number;
  replay_id: string;
  seq: number;
  time_ms: number;
  end_ms: number;
  event_count: number;
  /** Size of the payload as stored (gzip stays gzip), bytes. */
  stored_bytes: number;
}

/** Where a chunk sits in playback order; also what a page's cursor holds. */
export interface ChunkPosition {
  replayStart: number;
  replayId: string;
  seq: number;
}

export interface OrderedChunk extends ChunkEntry {
  replayStart: number;
}

export interface ReplaySummary {
  replay_id: string;
  start_ms: number;
  end_ms: number;
  chunk_count: number;
  event_count: number;
  /** The replay's first chunk, where its page load (rrweb Meta) is. */
  first_chunk_id: number;
}

export interface ReplayGap {
  replay_id: string;
  /** The first {@link MAX_LISTED_GAPS} missing seqs, ascending. */
  missing_seq: number[];
  /** How many seqs are missing in all. */
  missing_count: number;
}

/** A replay whose highest seq is absurd must not make the answer enumerate two billion numbers. */
export const MAX_LISTED_GAPS = 1000;

export interface SessionChunks {
  chunks: OrderedChunk[];
  replays: ReplaySummary[];
  gaps: ReplayGap[];
}

export function orderChunks(entries: readonly ChunkEntry[]): SessionChunks {
  const byReplay = new Map<string, ChunkEntry[]>();
  for (const entry of entries) {
    const list = byReplay.get(entry.replay_id) ?? [];
    list.push(entry);
    byReplay.set(entry.replay_id, list);
  }
  const replays: Array<{ summary: ReplaySummary; chunks: ChunkEntry[] }> = [];
  const gaps: ReplayGap[] = [];
  for (const [replayId, list] of byReplay) {
    const chunks = distinctBySeq(list);
    const first = chunks[0]!;
    replays.push({
      chunks,
      summary: {
        replay_id: replayId,
        start_ms: first.time_ms,
        end_ms: Math.max(...chunks.map((c) => c.end_ms)),
        chunk_count: chunks.length,
        event_count: chunks.reduce((n, c) => n + c.event_count, 0),
        first_chunk_id: first.id,
      },
    });
    const gap = missingSeqs(chunks.map((c) => c.seq));
    if (gap.missing_count > 0) gaps.push({ replay_id: replayId, ...gap });
  }
  replays.sort(
    (a, b) => a.summary.start_ms - b.summary.start_ms || compareText(a.summary.replay_id, b.summary.replay_id),
  );
  return {
    chunks: replays.flatMap(({ summary, chunks }) => chunks.map((c) => ({ ...c, replayStart: summary.start_ms }))),
    replays: replays.map((r) => r.summary),
    gaps: gaps.sort((a, b) => compareText(a.replay_id, b.replay_id)),
  };
}

/** The chunks after `cursor` (all when none), at most `limit`, and fewer once `maxStoredBytes` are reached. */
export function pageOfChunks(
  chunks: readonly OrderedChunk[],
  cursor: ChunkPosition | undefined,
  limit: number,
  maxStoredBytes: number,
): { page: OrderedChunk[]; more: boolean } {
  const start = cursor ? chunks.findIndex((c) => comparePosition(positionOf(c), cursor) > 0) : 0;
  if (start < 0) return { page: [], more: false };
  const page: OrderedChunk[] = [];
  let bytes = 0;
  for (const chunk of chunks.slice(start, start + limit)) {
    // Every page holds at least one chunk, however large, so paging always moves on.
    if (page.length > 0 && bytes + chunk.stored_bytes > maxStoredBytes) break;
    page.push(chunk);
    bytes += chunk.stored_bytes;
  }
  return { page, more: start + page.length < chunks.length };
}

export const positionOf = (c: OrderedChunk): ChunkPosition => ({
  replayStart: c.replayStart,
  replayId: c.replay_id,
  seq: c.seq,
});

function comparePosition(a: ChunkPosition, b: ChunkPosition): number {
  return a.replayStart - b.replayStart || compareText(a.replayId, b.replayId) || a.seq - b.seq;
}

/** Code-unit order, the same in every locale and database. */
const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** One chunk per seq (the first stored), ascending. */
function distinctBySeq(list: readonly ChunkEntry[]): ChunkEntry[] {
  const sorted = [...list].sort((a, b) => a.seq - b.seq || a.id - b.id);
  return sorted.filter((c, i) => i === 0 || sorted[i - 1]!.seq !== c.seq);
}

/** Seqs missing from 0 to the highest present; `seqs` ascending and distinct. */
function missingSeqs(seqs: readonly number[]): { missing_seq: number[]; missing_count: number } {
  const missing: number[] = [];
  let expected = 0;
  for (const seq of seqs) {
    for (let s = expected; s < seq && missing.length < MAX_LISTED_GAPS; s++) missing.push(s);
    expected = seq + 1;
  }
  return { missing_seq: missing, missing_count: expected - seqs.length };
}
