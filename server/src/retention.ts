import type { Kysely } from 'kysely';
import { pruneAudit } from './audit/store';
import type { Clock } from './clock';
import { TELEMETRY_TABLES, type Database } from './db/schema';
import { refusalDb } from './ingest/refusals/tables';
import { pruneIssueFacts } from './issues/store';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

export interface RetentionResult {
  cutoffMs: number;
  deleted: Record<string, number>;
}

/**
 * Deletes telemetry received more than `days` days ago, sessions with no activity received since, the issue facts
 * of that age (pruneIssueFacts) and audit entries older than that. Age is counted
 * from receipt, not from the client's timestamps, so a browser with a wrong clock cannot make fresh data expire.
 */
export async function applyRetention(db: Kysely<Database>, clock: Clock, days: number): Promise<RetentionResult> {
  const cutoffMs = clock.now() - days * DAY_MS;
  const deleted: Record<string, number> = {};
  for (const table of TELEMETRY_TABLES) {
    const res = await db.deleteFrom(table).where('received_ms', '<', cutoffMs).executeTakeFirst();
    deleted[table] = Number(res.numDeletedRows);
  }
  const res = await db.deleteFrom('sessions').where('last_received_ms', '<', cutoffMs).executeTakeFirst();
  deleted.sessions = Number(res.numDeletedRows);
  // Refusal counts go with the telemetry of their time: their examples name origins and user agents.
  const refusals = await refusalDb(db)
    .deleteFrom('ingest_refusals')
    .where('hour_ms', '<', cutoffMs - HOUR_MS)
    .executeTakeFirst();
  deleted.ingest_refusals = Number(refusals.numDeletedRows);
  Object.assign(deleted, await pruneIssueFacts(db, cutoffMs));
  // The audit log is kept as long as the telemetry it explains (docs/teams.md, "Audit log").
  deleted.audit_log = await pruneAudit(db, cutoffMs);
  return { cutoffMs, deleted };
}

/** Runs retention now and then every `intervalMs`; errors are logged, never thrown. Returns a stop function. */
export function scheduleRetention(
  db: Kysely<Database>,
  clock: Clock,
  days: number,
  log: (line: string) => void,
  intervalMs = 3_600_000,
): () => void {
  const run = () =>
    applyRetention(db, clock, days).then(
      (r) => {
        const total = Object.values(r.deleted).reduce((a, b) => a + b, 0);
        if (total > 0) log(`retention: deleted ${total} rows older than ${days} days (${JSON.stringify(r.deleted)})`);
      },
      (err: unknown) => log(`retention failed: ${err instanceof Error ? err.message : String(err)}`),
    );
  void run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
