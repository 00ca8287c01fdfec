import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Database } from '../db/schema';
import { REPLAY_MODES, type ReplayMode } from '../otlp/session-facts';
import { withPayloads } from '../replay/chunk-store';
import { storedEvents, type StoredEvents } from '../replay/stored-events';
import type { ChunkEntry } from '../replay/chunk-order';
import { notFound } from '../shared/domain-errors';
import type { Cursor, Position, SortOrder } from '../shared/keyset';
import { afterCursor, type SortColumn } from './listing';

/**
 * Every read of the sessions aggregate: the summary rows (one per session, kept by ingest), their listing, facets and
 * sampling figures, and one session's replay chunks, recipe steps, failed requests and newest log resource. Writes
 * belong to ingest (ingest/sessions.ts).
 */

type Db = Kysely<Database>;

/** The session's summary row with its app name; `not_found` when the key's project has no such session. */
export async function findSession(db: Db, projectId: string, sessionId: string) {
  const row = await db
    .selectFrom('sessions as s')
    .innerJoin('apps', 'apps.id', 's.app_id')
    .selectAll('s')
    .select('apps.name as app')
    .where('s.project_id', '=', projectId)
    .where('s.session_id', '=', sessionId)
    .executeTakeFirst();
  if (!row) throw notFound(`no session "${sessionId}" in this project`);
  return row;
}

/** Every replay chunk of the session, without payloads (served by the replay_chunks_seq unique index). */
export function chunkIndex(db: Db, projectId: string, sessionId: string): Promise<ChunkEntry[]> {
  return db
    .selectFrom('replay_chunks')
    .select([
      'id',
      'replay_id',
      'seq',
      'time_ms',
      'end_ms',
      'event_count',
      // Rows stored before migration 0030 have no size of their own.
      sql<number>`coalesce(stored_bytes, length(data))`.as('stored_bytes'),
    ])
    .where('project_id', '=', projectId)
    .where('session_id', '=', sessionId)
    .execute();
}

/** The decoded events of the chunks with these ids, by id (a chunk that cannot be served says so: storedEvents). */
export async function chunkEvents(
  db: Db,
  projectId: string,
  ids: readonly number[],
): Promise<Map<number, StoredEvents>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('replay_chunks')
    .select(['id', 'encoding', 'data', 'object_key'])
    .where('project_id', '=', projectId)
    .where('id', 'in', [...ids])
    .execute();
  const stored = await withPayloads(db, rows);
  return new Map(stored.map((r) => [r.id, storedEvents(r.encoding, r.data)]));
}

/** The session's recipe steps, oldest first, after `cursor` (time, id) when given; all of them without a limit. */
export function sessionRecipes(db: Db, projectId: string, sessionId: string, limit?: number, cursor?: Cursor) {
  let q = db
    .selectFrom('recipes as r')
    .innerJoin('apps', 'apps.id', 'r.app_id')
    .selectAll('r')
    .select('apps.name as app')
    .where('r.project_id', '=', projectId)
    .where('r.session_id', '=', sessionId);
  if (cursor) {
    q = q.where((eb) =>
      eb.or([
        eb('r.time_ms', '>', cursor.t),
        eb.and([eb('r.time_ms', '=', cursor.t), eb('r.id', '>', Number(cursor.k))]),
      ]),
    );
  }
  q = q.orderBy('r.time_ms', 'asc').orderBy('r.id', 'asc');
  return (limit === undefined ? q : q.limit(limit)).execute();
}

/** The session's recorded requests that failed (status 400 or more, or none) in `[fromMs, toMs]`, newest first. */
export function failedRecipesBetween(
  db: Db,
  projectId: string,
  sessionId: string,
  window: { fromMs: number; toMs: number; limit: number },
) {
  return db
    .selectFrom('recipes')
    .select(['time_ms', 'method', 'url', 'status'])
    .where('project_id', '=', projectId)
    .where('session_id', '=', sessionId)
    .where('time_ms', '<=', window.toMs)
    .where('time_ms', '>=', window.fromMs)
    .where((eb) => eb.or([eb('status', '>=', 400), eb('status', '=', 0)]))
    .orderBy('time_ms', 'desc')
    .limit(window.limit)
    .execute();
}

/** The OTLP resource (JSON) of the session's newest log: how its SDK described the browser; undefined without logs. */
export async function newestLogResource(db: Db, projectId: string, sessionId: string): Promise<string | undefined> {
  const log = await db
    .selectFrom('logs')
    .select('resource')
    .where('project_id', '=', projectId)
    .where('session_id', '=', sessionId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return log?.resource;
}

/** A page of the sessions listing: `limit + 1` rows after the cursor, each with its app name. */
export function listSessions(
  db: Db,
  projectId: string,
  page: {
    conditions: readonly RawBuilder<SqlBool>[];
    sort: SortColumn;
    order: SortOrder;
    after?: Position;
    limit: number;
  },
) {
  let q = db
    .selectFrom('sessions as s')
    .innerJoin('apps', 'apps.id', 's.app_id')
    .selectAll('s')
    .select('apps.name as app')
    .where('s.project_id', '=', projectId);
  for (const condition of page.conditions) q = q.where(condition);
  if (page.after) q = q.where(afterCursor(page.sort, page.order, page.after));
  return q
    .orderBy(`s.${page.sort}`, page.order)
    .orderBy('s.session_id', page.order)
    .limit(page.limit + 1)
    .execute();
}

/** The ids of the project's sessions whose latest user is `userId` (served by sessions_project_user). */
export function sessionsOfUser(db: Db, projectId: string, userId: string) {
  return db
    .selectFrom('sessions')
    .select('session_id')
    .where('project_id', '=', projectId)
    .where('user_id', '=', userId);
}

/** Most values one facet lists. */
export const FACETS_LIMIT = 100;

type FacetColumn = 'env' | 'release' | 'browser' | 'app_id';
const COLUMNS: readonly FacetColumn[] = ['env', 'release', 'browser', 'app_id'];

export interface SessionFacets {
  envs: string[];
  releases: string[];
  browsers: string[];
  apps: string[];
}

export interface FacetScope {
  projectId: string;
  appId?: string;
  /** Conditions on `sessions as s` for a time range (filters.ts); none: every session of the project. */
  range: RawBuilder<SqlBool>[];
  /**
   * Set when the range is only "active since then" (a `from` without `to`, for no one app), the console's usual window:
   * the facets are then read by skipping through the indexes too, each value kept if a session has it since then.
   */
  activeSince?: number;
}

/**
 * The distinct environments, releases, browsers and app names among a project's sessions, alphabetical (each
 * database's text order), at most {@link FACETS_LIMIT} each, for the console's filter menus.
 *
 * Without a time range, or with one that only starts (the console's "last 30 days"), each facet is read by skipping
 * through its index (project_id, column, last_ms) from one value to the next: a recursive query of one index seek per
 * value, and one more per value to see a session active since the start, however many sessions there are (reading
 * the sessions of a busy month instead took 355 ms on SQLite, bench:scale). With an end or an app, the sessions in
 * range are read once through the last_ms index and their value combinations gathered.
 */
export async function sessionFacets(db: Db, scope: FacetScope): Promise<SessionFacets> {
  const values =
    scope.range.length === 0 || scope.activeSince !== undefined
      ? await Promise.all(COLUMNS.map((column) => skipScan(db, scope, column)))
      : await inRange(db, scope);
  const [envs, releases, browsers, appIds] = values as [string[], string[], string[], string[]];
  return { envs, releases, browsers, apps: await appNames(db, appIds) };
}

/**
 * A loose index scan: the smallest value, then the smallest above it, and so on, each an index seek; with
 * `activeSince`, a value is kept when a seek finds a session with it active since then.
 */
async function skipScan(db: Db, { projectId, appId, activeSince }: FacetScope, column: FacetColumn): Promise<string[]> {
  const col = sql.ref(column);
  const app = appId === undefined ? sql`` : sql` and app_id = ${appId}`;
  const active =
    activeSince === undefined
      ? sql``
      : sql` and exists (select 1 from sessions a where a.project_id = ${projectId} and ${sql.ref(`a.${column}`)} = v.value and a.last_ms >= ${activeSince})`;
  const { rows } = await sql<{ value: string }>`
    with recursive v(value) as (
      select min(${col}) from sessions where project_id = ${projectId}${app}
      union all
      select (select min(${col}) from sessions where project_id = ${projectId}${app} and ${col} > v.value) from v where v.value is not null
    )
    select value from v where value is not null${active} limit ${FACETS_LIMIT}`.execute(db);
  return rows.map((r) => r.value);
}

async function inRange(db: Db, { projectId, range }: FacetScope): Promise<string[][]> {
  let q = db
    .selectFrom('sessions as s')
    .select(['s.env', 's.release', 's.browser', 's.app_id'])
    .where('s.project_id', '=', projectId);
  for (const condition of range) q = q.where(condition);
  const rows = await q.groupBy(['s.env', 's.release', 's.browser', 's.app_id']).execute();
  return COLUMNS.map((column) => distinctSorted(rows.map((r) => r[column])));
}

const distinctSorted = (values: ReadonlyArray<string | null>): string[] =>
  [...new Set(values.filter((v): v is string => v !== null))]
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, FACETS_LIMIT);

async function appNames(db: Db, appIds: string[]): Promise<string[]> {
  if (appIds.length === 0) return [];
  const apps = await db.selectFrom('apps').select('name').where('id', 'in', appIds).execute();
  return distinctSorted(apps.map((a) => a.name));
}

export interface SamplingScope {
  appId?: string;
  /** Sessions whose activity overlaps [from, to), as in the session listing. */
  from?: number;
  to?: number;
}

export interface SamplingSummary {
  sessions_received: number;
  /** Sessions before sampling: each received session stands for 1 / its sample rate (1 when none was sent). */
  sessions_estimated: number;
  /** received / estimated, rounded to 4 places; null without sessions. */
  sampled_share: number | null;
  /** Received sessions by `svc.replay.mode`; `unknown` for sessions that did not say (other OTLP senders). */
  replay_modes: Record<ReplayMode | 'unknown', number>;
  /** Sessions sampled for replay on error that did send a replay (an error happened). */
  replays_kept_on_error: number;
}

/**
 * How much of a project's traffic was sampled (GET /control-plane/sessions/sampling), from the session records: each
 * session is one row however often its batches were retried, so nothing is counted twice.
 */
export async function samplingSummary(db: Db, projectId: string, scope: SamplingScope): Promise<SamplingSummary> {
  let q = db
    .selectFrom('sessions')
    .select([
      'replay_mode',
      sql<string | number>`count(*)`.as('received'),
      sql<string | number>`sum(1.0 / coalesce(sample_rate, 1))`.as('estimated'),
      sql<string | number>`sum(case when replay_chunk_count > 0 then 1 else 0 end)`.as('with_replay'),
    ])
    .where('project_id', '=', projectId);
  if (scope.appId !== undefined) q = q.where('app_id', '=', scope.appId);
  if (scope.from !== undefined) q = q.where('last_ms', '>=', scope.from);
  if (scope.to !== undefined) q = q.where('first_ms', '<', scope.to);
  const groups = await q.groupBy('replay_mode').execute();

  const modes = Object.fromEntries([...REPLAY_MODES, 'unknown'].map((m) => [m, 0])) as SamplingSummary['replay_modes'];
  let received = 0;
  let estimated = 0;
  let keptOnError = 0;
  // PostgreSQL answers count and sum of integers as text (bigint, numeric).
  for (const g of groups) {
    const mode = (REPLAY_MODES as readonly (string | null)[]).includes(g.replay_mode)
      ? (g.replay_mode as ReplayMode)
      : 'unknown';
    modes[mode] += Number(g.received);
    received += Number(g.received);
    estimated += Number(g.estimated);
    if (mode === 'on_error') keptOnError = Number(g.with_replay);
  }
  return {
    sessions_received: received,
    sessions_estimated: Math.round(estimated),
    sampled_share: received === 0 ? null : Math.round((received / estimated) * 10_000) / 10_000,
    replay_modes: modes,
    replays_kept_on_error: keptOnError,
  };
}
