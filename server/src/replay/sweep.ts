import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import { runPeriodically } from '../shared/periodic';
import { chunkStoreOf } from './chunk-store';

/**
 * Objects younger than this are never swept: ingest puts a chunk's object before inserting its row, and a request
 * answered 503 puts it again when the SDK retries, so an object this young may be a row on its way.
 */
export const SWEEP_GRACE_MS = 3_600_000;
/** Object keys looked up per query. */
const LOOKUP_CHUNK = 500;

/**
 * Deletes the bucket's objects that no replay chunk row names and that were last written more than `graceMs` ago:
 * payloads of chunks whose insert never came (a crash between put and insert, a chunk stored under the same seq with
 * other bytes), and objects whose delete failed after their rows were deleted. Safe on every replica at once: a
 * referenced object is never a candidate, and deleting an object twice is no error. Returns how many it deleted.
 */
export async function sweepOrphanChunks(
  db: Kysely<Database>,
  clock: Clock,
  options: { graceMs?: number; signal?: AbortSignal } = {},
): Promise<number> {
  const store = chunkStoreOf(db);
  let swept = 0;
  for await (const keys of store.objectsBefore(clock.now() - (options.graceMs ?? SWEEP_GRACE_MS))) {
    if (options.signal?.aborted) break;
    const referenced = new Set<string>();
    for (let i = 0; i < keys.length; i += LOOKUP_CHUNK) {
      const rows = await db
        .selectFrom('replay_chunks')
        .select('object_key')
        .where('object_key', 'in', keys.slice(i, i + LOOKUP_CHUNK))
        .execute();
      for (const r of rows) if (r.object_key !== null) referenced.add(r.object_key);
    }
    const orphans = keys.filter((key) => !referenced.has(key));
    await store.release(orphans);
    swept += orphans.length;
  }
  return swept;
}

/**
 * Sweeps now and then every `intervalMs` (shared/periodic.ts); a sweep that deleted anything says so. Daily: orphans are
 * rare (a crash between put and insert, a failed delete), while a sweep lists the whole prefix, 1,000 keys a request.
 */
export function scheduleChunkSweep(
  db: Kysely<Database>,
  clock: Clock,
  log: (line: string) => void,
  intervalMs = 86_400_000,
): () => Promise<void> {
  const sweep = async (signal: AbortSignal) => {
    const n = await sweepOrphanChunks(db, clock, { signal });
    if (n > 0) log(`replay object sweep: deleted ${n} objects no chunk names`);
  };
  return runPeriodically('replay object sweep', sweep, log, intervalMs);
}
