import { sql, type Kysely, type RawBuilder } from 'kysely';
import { deleteMatching, sumOverLeaves, type BatchOptions } from '../db/batched-delete';
import type { Database } from '../db/schema';
import { chunkStoreOf, DATABASE_CHUNKS } from './chunk-store';
import { DELETE_OBJECTS_MAX } from './s3-chunk-store';

/** A batch is chosen by primary key; time_ms is the partition key on PostgreSQL, so each row is found in its day. */
const KEY = ['id', 'time_ms'];

/** Hands the event loop to what is waiting (ingest requests, their commits) before the next batch. */
const yieldToOthers = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Deletes the replay chunks `where` matches, and their objects when payloads live in object storage. Rows go first, a
 * batch at a time (at most one DeleteObjects request of keys each; one day partition at a time on PostgreSQL, as
 * deleteMatching does), each batch's keys returned by its DELETE and then
 * deleted from the bucket: a row never names a deleted object, and an object whose delete failed or was cut short by a
 * crash is one no row names, which the sweeper deletes after its grace period. Returns how many rows were deleted.
 */
export async function deleteChunks(
  db: Kysely<Database>,
  where: RawBuilder<unknown>,
  options: BatchOptions = {},
): Promise<number> {
  const store = chunkStoreOf(db);
  if (store === DATABASE_CHUNKS) return deleteMatching(db, { table: 'replay_chunks', key: KEY }, where, options);
  const size = Math.min(options.batchSize ?? DELETE_OBJECTS_MAX, DELETE_OBJECTS_MAX);
  return sumOverLeaves(db, 'replay_chunks', async (leaf) => {
    const table = sql.table(leaf);
    let deleted = 0;
    while (!options.signal?.aborted) {
      const batch = sql`select id, time_ms from ${table} where ${where} limit ${size}`;
      const { rows } = await sql<{
        object_key: string | null;
      }>`delete from ${table} where (id, time_ms) in (${batch})
        returning object_key`.execute(db);
      deleted += rows.length;
      await store.release(rows.flatMap((r) => (r.object_key === null ? [] : [r.object_key])));
      if (rows.length < size) break;
      await yieldToOthers();
    }
    return deleted;
  });
}

/** Retention: the project's chunks received before the cutoff, along the (project_id, received_ms) index. */
export function deleteChunksReceivedBefore(
  db: Kysely<Database>,
  projectId: string,
  cutoffMs: number,
  options: BatchOptions = {},
): Promise<number> {
  return deleteChunks(db, sql`received_ms < ${cutoffMs} and project_id = ${projectId}`, options);
}
