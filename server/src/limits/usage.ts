import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { LimitSignal } from './signals';
import { limitsDb, type LimitTables } from './tables';

/** Usage is counted in buckets of five minutes of receipt: fine enough for spikes, few enough rows for a month. */
export const BUCKET_MS = 300_000;
export const DAY_MS = 86_400_000;
/** How often counts kept in memory are written, and how stale a replica's view of the others' usage may be. */
export const USAGE_FLUSH_MS = 5_000;

type Row = LimitTables['ingest_usage'];

/** What `add` counts: units accepted or throttled, requests refused. */
export type UsageCounts = Partial<Pick<Row, 'accepted' | 'throttled' | 'refused'>>;
type DayTotal = { total: number; readMs: number };

export interface UsageCounter {
  /** Counts units accepted or throttled and requests refused at `atMs`, in memory until the next flush. */
  add(projectId: string, signal: LimitSignal, counts: UsageCounts, atMs: number): void;
  /**
   * Units of `signal` the project had accepted on the UTC day of `nowMs`: every replica's flushed counts, read at most
   * every {@link USAGE_FLUSH_MS}, plus what this process accepted since.
   */
  acceptedToday(projectId: string, signal: LimitSignal, nowMs: number): Promise<number>;
  /** Writes the counts kept so far (readers call it first, so what this process counted is in what they read). */
  flush(): Promise<void>;
  /** Stops the timer and writes what is left. */
  stop(): Promise<void>;
}

/** Adds counts to `ingest_usage`, one upsert per row. */
const addUsage = (db: Kysely<Database>, rows: Row[]) =>
  limitsDb(db)
    .insertInto('ingest_usage')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['project_id', 'signal', 'bucket_ms']).doUpdateSet({
        accepted: sql<number>`ingest_usage.accepted + excluded.accepted`,
        throttled: sql<number>`ingest_usage.throttled + excluded.throttled`,
        refused: sql<number>`ingest_usage.refused + excluded.refused`,
      }),
    )
    .execute();

/**
 * Usage counts kept in memory and added to `ingest_usage` every few seconds, one upsert per (project, signal, bucket),
 * so counting costs ingest no database write of its own. The daily quota reads them back: with replicas it holds
 * within what the others accepted in the last {@link USAGE_FLUSH_MS} (docs/governance.md, "Limits across replicas").
 */
export function createUsageCounter(db: Kysely<Database>, log: (line: string) => void): UsageCounter {
  let pending = new Map<string, Row>();
  let writing: Promise<void> = Promise.resolve();
  const days = new Map<string, DayTotal>();

  const merge = (row: Row) => {
    const key = `${row.project_id}\u0000${row.signal}\u0000${row.bucket_ms}`;
    const known = pending.get(key);
    if (!known) pending.set(key, row);
    else {
      known.accepted += row.accepted;
      known.throttled += row.throttled;
      known.refused += row.refused;
    }
  };

  const write = async () => {
    if (pending.size === 0) return;
    const rows = [...pending.values()];
    pending = new Map();
    try {
      await addUsage(db, rows);
    } catch (err) {
      // Kept for the next flush: a busy database must not lose the counts.
      for (const row of rows) merge(row);
      log(
        `ingest usage counts not written (kept for the next try): ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  };

  const pendingOfDay = (projectId: string, signal: string, dayMs: number) => {
    let sum = 0;
    for (const row of pending.values()) {
      if (
        row.project_id === projectId &&
        row.signal === signal &&
        row.bucket_ms >= dayMs &&
        row.bucket_ms < dayMs + DAY_MS
      )
        sum += row.accepted;
    }
    return sum;
  };

  const readDay = async (projectId: string, signal: string, dayMs: number, nowMs: number): Promise<DayTotal> => {
    // After the write in progress, so that no count is in neither the table nor `pending`.
    await writing;
    const row = await limitsDb(db)
      .selectFrom('ingest_usage')
      .select((eb) => eb.fn.sum<number | string | null>('accepted').as('accepted'))
      .where('project_id', '=', projectId)
      .where('signal', '=', signal)
      .where('bucket_ms', '>=', dayMs)
      .where('bucket_ms', '<', dayMs + DAY_MS)
      .executeTakeFirst();
    return { total: Number(row?.accepted ?? 0) + pendingOfDay(projectId, signal, dayMs), readMs: nowMs };
  };

  const flush = () => (writing = writing.then(write));
  const timer = setInterval(() => void flush(), USAGE_FLUSH_MS);
  timer.unref();

  return {
    add(projectId, signal, { accepted = 0, throttled = 0, refused = 0 }, atMs) {
      const bucket = atMs - (atMs % BUCKET_MS);
      merge({ project_id: projectId, signal, bucket_ms: bucket, accepted, throttled, refused });
      const day = days.get(`${projectId}\u0000${signal}\u0000${atMs - (atMs % DAY_MS)}`);
      if (day) day.total += accepted;
    },
    async acceptedToday(projectId, signal, nowMs) {
      const dayMs = nowMs - (nowMs % DAY_MS);
      const key = `${projectId}\u0000${signal}\u0000${dayMs}`;
      let day = days.get(key);
      if (!day || nowMs - day.readMs >= USAGE_FLUSH_MS) {
        day = await readDay(projectId, signal, dayMs, nowMs);
        // Yesterday's totals are never read again.
        for (const known of days.keys()) if (!known.endsWith(`\u0000${dayMs}`)) days.delete(known);
        days.set(key, day);
      }
      return day.total;
    },
    flush,
    async stop() {
      clearInterval(timer);
      await flush();
    },
  };
}
