import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { DEFAULT_ENV } from '../otlp/environment';
import { MAX_VITAL_POINTS } from '../vitals/store';
import { VITAL_OF_METRIC } from '../vitals/summary';

/**
 * A release is the `service.version` the sessions of an app report (sessions.release); its records are those of its
 * sessions. Test runs' sessions are left out: what a CI machine measured says nothing of what users got.
 */
export interface ReleaseScope {
  projectId: string;
  /** One app's releases; undefined: every app of the project. */
  appId?: string;
  /** Only sessions of this environment (a session naming none is `production`); undefined: every one but tests. */
  env?: string;
}

/** A release and when its first session started. */
export interface ReleaseSeen {
  release: string;
  firstSeenMs: number;
  sessions: number;
}

/** Most releases a listing answers. */
export const MAX_RELEASES = 100;

type Db = Kysely<Database>;

/** The sessions of the scope (as `s`), test runs left out. */
function scopedSessions(db: Db, scope: ReleaseScope) {
  let q = db.selectFrom('sessions as s').where('s.project_id', '=', scope.projectId).where('s.test_run_id', 'is', null);
  if (scope.appId !== undefined) q = q.where('s.app_id', '=', scope.appId);
  if (scope.env !== undefined) q = q.where(sql<string>`coalesce(s.env, ${DEFAULT_ENV})`, '=', scope.env);
  return q;
}

/** Releases with their first session's start, newest first (ties by name), grouped over the scope's sessions. */
function releasesByFirstSeen(db: Db, scope: ReleaseScope) {
  return scopedSessions(db, scope)
    .where('s.release', 'is not', null)
    .select((eb) => [
      's.release as release',
      eb.fn.min('s.first_ms').as('first_ms'),
      eb.fn.countAll<number | string>().as('sessions'),
    ])
    .groupBy('s.release')
    .orderBy('first_ms', 'desc')
    .orderBy('s.release', 'desc');
}

const seen = (r: { release: string | null; first_ms: number | string; sessions: number | string }): ReleaseSeen => ({
  release: r.release!,
  firstSeenMs: Number(r.first_ms),
  sessions: Number(r.sessions),
});

/** The scope's releases, newest first, at most {@link MAX_RELEASES}. */
export async function listReleases(db: Db, scope: ReleaseScope): Promise<ReleaseSeen[]> {
  return (await releasesByFirstSeen(db, scope).limit(MAX_RELEASES).execute()).map(seen);
}

/** When `release` was first seen in the scope; undefined when no session of the scope reports it. */
export async function findRelease(db: Db, scope: ReleaseScope, release: string): Promise<ReleaseSeen | undefined> {
  const row = await releasesByFirstSeen(db, scope).where('s.release', '=', release).executeTakeFirst();
  return row && seen(row);
}

/**
 * The release before `current`: of those first seen before it, the one first seen last; undefined for the first.
 * Alert rules comparing with the previous release (alerts/query/releases.ts) place releases the same way.
 */
export async function releaseBefore(
  db: Db,
  scope: ReleaseScope,
  current: ReleaseSeen,
): Promise<ReleaseSeen | undefined> {
  const row = await releasesByFirstSeen(db, scope)
    .where('s.release', '<>', current.release)
    .having((eb) => eb.fn.min('s.first_ms'), '<', current.firstSeenMs)
    .executeTakeFirst();
  return row && seen(row);
}

/**
 * Most sessions of a release its figures read: the newest, so that a release's figures cost the same however many
 * sessions it had (a busy app's release has tens of thousands; their spans and vital points took seconds to read).
 */
export const MAX_RELEASE_SESSIONS = 2_000;

/** The newest {@link MAX_RELEASE_SESSIONS} sessions of the release in the scope (as `s`), by start. */
const newestSessions = (db: Db, scope: ReleaseScope, release: string) =>
  scopedSessions(db, scope)
    .where('s.release', '=', release)
    .orderBy('s.first_ms', 'desc')
    .orderBy('s.session_id', 'desc')
    .limit(MAX_RELEASE_SESSIONS);

/** The release's sessions read, and those among them that stored no error log. */
export async function sessionCounts(db: Db, scope: ReleaseScope, release: string) {
  const row = await db
    .selectFrom(newestSessions(db, scope, release).select('s.error_count').as('n'))
    .select((eb) => [
      eb.fn.countAll<number | string>().as('sessions'),
      eb.fn.sum<number | string | null>(sql`case when n.error_count = 0 then 1 else 0 end`).as('error_free'),
    ])
    .executeTakeFirstOrThrow();
  return { read: Number(row.sessions), errorFree: Number(row.error_free ?? 0) };
}

/** Spans of the sessions read, and those with status ERROR. */
export async function spanCounts(db: Db, scope: ReleaseScope, release: string) {
  const row = await db
    .selectFrom('spans as sp')
    .where('sp.project_id', '=', scope.projectId)
    .where('sp.session_id', 'in', newestSessions(db, scope, release).select('s.session_id'))
    .select((eb) => [
      eb.fn.countAll<number | string>().as('spans'),
      eb.fn.sum<number | string | null>(sql`case when sp.status_code = 2 then 1 else 0 end`).as('errors'),
    ])
    .executeTakeFirstOrThrow();
  return { spans: Number(row.spans), errors: Number(row.errors ?? 0) };
}

/**
 * At most {@link MAX_VITAL_POINTS} + 1 vital points of the sessions read, read session by session through the points'
 * session index: a cross join, which SQLite's planner keeps in the order written (with an inner join it walked every
 * vital of the project through the name-and-time index, 150 ms for 20,000 sessions).
 */
export function releaseVitalPoints(db: Db, scope: ReleaseScope, release: string) {
  return db
    .selectFrom(newestSessions(db, scope, release).select('s.session_id').as('n'))
    .crossJoin('metric_points as m')
    .where('m.project_id', '=', scope.projectId)
    .whereRef('m.session_id', '=', 'n.session_id')
    .where('m.name', 'in', [...VITAL_OF_METRIC.keys()])
    .where('m.value', 'is not', null)
    .select(['m.name', 'm.value'])
    .limit(MAX_VITAL_POINTS + 1)
    .execute();
}
