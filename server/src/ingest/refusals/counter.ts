import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import { refusalDb, type RefusalExample, type RefusalTables } from './tables';

const HOUR_MS = 3_600_000;
/** How often counts kept in memory are written: refusals cost ingest no database write of their own. */
const FLUSH_INTERVAL_MS = 5_000;

/** One refused ingest request, counted under `projectId` ('' for none) and `reason`. */
export interface Refusal {
  projectId: string;
  reason: string;
  status: number;
  atMs: number;
  example: RefusalExample;
}

/** A row as it will be added to `ingest_refusals`. */
type Pending = RefusalTables['ingest_refusals'];

export interface RefusalCounter {
  /** Counts a refusal in memory; written at the next flush. */
  record(refusal: Refusal): void;
  /** Writes the counts kept so far (readers call it first, so what this process counted is in what they read). */
  flush(): Promise<void>;
  /** Stops the timer and writes what is left. */
  stop(): Promise<void>;
}

/**
 * Refusal counts kept in memory and added to `ingest_refusals` every few seconds, one upsert per (project, hour,
 * reason), so a flood of refused requests costs one row write per reason per flush rather than one per request. The
 * keys in memory are bounded by projects × reasons (the reasons are the server's own error codes) × hours.
 */
export function createRefusalCounter(db: Kysely<Database>, log: (line: string) => void): RefusalCounter {
  let pending = new Map<string, Pending>();
  let writing: Promise<void> = Promise.resolve();

  const merge = (row: Pending) => {
    const key = `${row.project_id}\u0000${row.hour_ms}\u0000${row.reason}`;
    const known = pending.get(key);
    if (!known) pending.set(key, row);
    else {
      known.count += row.count;
      if (row.last_ms >= known.last_ms)
        Object.assign(known, { last_ms: row.last_ms, example: row.example, status: row.status });
    }
  };

  const write = async () => {
    if (pending.size === 0) return;
    const rows = [...pending.values()];
    pending = new Map();
    try {
      await refusalDb(db)
        .insertInto('ingest_refusals')
        .values(rows)
        .onConflict((oc) =>
          oc.columns(['project_id', 'hour_ms', 'reason']).doUpdateSet({
            count: sql<number>`ingest_refusals.count + excluded.count`,
            // Another process may have written a newer example of the same hour meanwhile.
            example: sql<string>`case when excluded.last_ms >= ingest_refusals.last_ms then excluded.example else ingest_refusals.example end`,
            status: sql<number>`case when excluded.last_ms >= ingest_refusals.last_ms then excluded.status else ingest_refusals.status end`,
            last_ms: sql<number>`case when excluded.last_ms >= ingest_refusals.last_ms then excluded.last_ms else ingest_refusals.last_ms end`,
          }),
        )
        .execute();
    } catch (err) {
      // Kept for the next flush: a busy database must not lose the counts.
      for (const row of rows) merge(row);
      log(
        `ingest refusal counts not written (kept for the next try): ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  };

  const flush = () => (writing = writing.then(write));
  const timer = setInterval(() => void flush(), FLUSH_INTERVAL_MS);
  timer.unref();

  return {
    record({ projectId, reason, status, atMs, example }) {
      const hourMs = Math.floor(atMs / HOUR_MS) * HOUR_MS;
      merge({
        project_id: projectId,
        hour_ms: hourMs,
        reason,
        status,
        count: 1,
        last_ms: atMs,
        example: JSON.stringify(example),
      });
    },
    flush,
    async stop() {
      clearInterval(timer);
      await flush();
    },
  };
}
