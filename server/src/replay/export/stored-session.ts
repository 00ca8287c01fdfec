import type { Kysely } from 'kysely';
import type { RecipeStep } from '../../../../wire/replay';
import type { Database } from '../../db/schema';
import { orderChunks } from '../chunk-order';
import { chunkEvents, chunkIndex, sessionRecipes } from '../../sessions/store';
import type { PlaywrightExport } from './playwright-spec';

/** Chunks decoded at a time where a whole session is read (detail, export): bounds the memory of one request. */
export const DECODE_BATCH = 20;

export async function forEachBatch<T>(items: readonly T[], run: (batch: T[]) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += DECODE_BATCH) await run(items.slice(i, i + DECODE_BATCH));
}

/**
 * Feeds a stored session's replay chunks to `exporter` in playback order, a batch at a time, and returns the session's
 * recipe steps, oldest first: what `exporter.finish` takes.
 */
export async function feedStoredSession(
  db: Kysely<Database>,
  projectId: string,
  sessionId: string,
  exporter: PlaywrightExport,
): Promise<RecipeStep[]> {
  const { chunks } = orderChunks(await chunkIndex(db, projectId, sessionId));
  await forEachBatch(chunks, async (batch) => {
    const events = await chunkEvents(
      db,
      projectId,
      batch.map((chunk) => chunk.id),
    );
    for (const chunk of batch) exporter.addChunk(chunk.replay_id, events.get(chunk.id)?.events ?? []);
  });
  return (await sessionRecipes(db, projectId, sessionId)).map((r) => JSON.parse(r.step) as RecipeStep);
}
