import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import { iso } from '../../shared/time';
import type { IssueRow } from './issues';

const HOUR_MS = 3_600_000;
/** Hours of counts in the detail: the two weeks up to the issue's last error. */
const COUNT_HOURS = 14 * 24;

/** Errors per hour (only hours with errors) over the two weeks up to the last one, oldest first. */
export async function hourlyCountsOf(db: Kysely<Database>, row: IssueRow) {
  const rows = await db
    .selectFrom('issue_hours')
    .select(['hour_ms', 'count'])
    .where('project_id', '=', row.project_id)
    .where('fingerprint', '=', row.fingerprint)
    .where('hour_ms', '>', row.last_seen_ms - COUNT_HOURS * HOUR_MS)
    .orderBy('hour_ms')
    .execute();
  return rows.map((r) => ({ start: iso(r.hour_ms), count: Number(r.count) }));
}

/** The releases the issue was seen in, the most recently seen first. */
export async function releasesOf(db: Kysely<Database>, row: IssueRow) {
  const rows = await db
    .selectFrom('issue_releases')
    .selectAll()
    .where('project_id', '=', row.project_id)
    .where('fingerprint', '=', row.fingerprint)
    .orderBy('last_seen_ms', 'desc')
    .execute();
  return rows.map((r) => ({
    release: r.release,
    events: Number(r.count),
    first_seen: iso(r.first_seen_ms),
    last_seen: iso(r.last_seen_ms),
  }));
}

/** The issues merged into this one (issues/merge.ts), newest first. */
export async function mergedInto(db: Kysely<Database>, row: IssueRow) {
  const rows = await db
    .selectFrom('issue_merges')
    .select(['from_fingerprint', 'merged_ms'])
    .where('project_id', '=', row.project_id)
    .where('into_fingerprint', '=', row.fingerprint)
    .orderBy('merged_ms', 'desc')
    .execute();
  return rows.map((r) => ({ id: r.from_fingerprint, at: iso(Number(r.merged_ms)) }));
}
