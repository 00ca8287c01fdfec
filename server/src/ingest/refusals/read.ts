import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import { iso } from '../../shared/time';
import { refusalDb, type RefusalExample } from './tables';

const HOUR_MS = 3_600_000;

export interface RefusalSummary {
  reason: string;
  status: number;
  count: number;
  last_at: string;
  example: RefusalExample;
}

/**
 * Refusals of one project ('' for those of no project) in the hours that overlap [fromMs, toMs), per reason, most
 * frequent first, each with its newest example. Counts are kept per hour, so the window is widened to whole hours.
 */
export async function refusalSummary(
  db: Kysely<Database>,
  projectId: string,
  fromMs: number,
  toMs: number,
): Promise<RefusalSummary[]> {
  const rows = await refusalDb(db)
    .selectFrom('ingest_refusals')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('hour_ms', '>=', Math.floor(fromMs / HOUR_MS) * HOUR_MS)
    .where('hour_ms', '<', toMs)
    .execute();
  const byReason = new Map<string, RefusalSummary & { lastMs: number }>();
  for (const row of rows) {
    const lastMs = Number(row.last_ms);
    const known = byReason.get(row.reason);
    const newer = !known || lastMs > known.lastMs;
    const count = Number(row.count) + (known?.count ?? 0);
    if (newer) {
      byReason.set(row.reason, {
        reason: row.reason,
        status: row.status,
        count,
        lastMs,
        last_at: iso(lastMs),
        example: JSON.parse(row.example) as RefusalExample,
      });
    } else known.count = count;
  }
  return [...byReason.values()]
    .sort((a, b) => b.count - a.count || b.lastMs - a.lastMs)
    .map(({ lastMs: _, ...summary }) => summary);
}
