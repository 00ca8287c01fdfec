import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import { sessionsWithReplay } from '../../incidents/detect/evidence';
import type { IssueRow } from './issues';

export interface AffectedSession {
  sessionId: string;
  /** When the issue's first and last error happened in the session. */
  firstMs: number;
  lastMs: number;
  hasReplay: boolean;
  /** The session's latest user (`user.id`); null when none was named or the session is no longer stored. */
  userId: string | null;
}

/** The issue's `limit` most recently affected sessions, newest first. */
export async function newestSessionsOf(
  db: Kysely<Database>,
  issue: IssueRow,
  limit: number,
): Promise<AffectedSession[]> {
  const rows = await db
    .selectFrom('issue_sessions as i')
    // Left: retention may have dropped the session while the issue still counts it.
    .leftJoin('sessions as s', (join) =>
      join.onRef('s.project_id', '=', 'i.project_id').onRef('s.session_id', '=', 'i.session_id'),
    )
    .select(['i.session_id', 'i.first_ms', 'i.last_ms', 's.user_id'])
    .where('i.project_id', '=', issue.project_id)
    .where('i.fingerprint', '=', issue.fingerprint)
    .orderBy('i.last_ms', 'desc')
    .limit(limit)
    .execute();
  const withReplay = await sessionsWithReplay(
    db,
    issue.project_id,
    rows.map((r) => r.session_id),
  );
  return rows.map((r) => ({
    sessionId: r.session_id,
    firstMs: Number(r.first_ms),
    lastMs: Number(r.last_ms),
    hasReplay: withReplay.has(r.session_id),
    userId: r.user_id ?? null,
  }));
}
