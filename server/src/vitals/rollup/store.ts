import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import { deleteMatching, type BatchOptions } from '../../db/batched-delete';
import { TEST_ENV } from '../../otlp/environment';
import { BUCKET_MS, VITAL_OF_METRIC, type VitalName } from '../summary';
import type { RolledFigures } from '../tally';
import type { EncodedHistogram } from './histogram';
import type { RollupPeriod, VitalRollupTables } from './tables';

/** Every query of the rollup tables (rollup/tables.ts): the job's and the summary's. */

export type RollupRow = VitalRollupTables['vital_rollups'];
export type Marks = VitalRollupTables['vital_rollup_marks'];
/** Rows per insert statement: 12 parameters each, well inside both databases' limits. */
const UPSERT_CHUNK = 500;
const METRICS = [...VITAL_OF_METRIC.keys()];
const STALE_KEY = ['project_id', 'period', 'start_ms'];

/** The vital points of a project with a value and an environment in [fromMs, toMs), as a rollup reads them. */
export function pointsIn(db: Kysely<Database>, projectId: string, fromMs: number, toMs: number) {
  return db
    .selectFrom('metric_points')
    .select(['app_id', 'env', 'route', 'name', 'value'])
    .where('project_id', '=', projectId)
    .where('name', 'in', METRICS)
    .where('time_ms', '>=', fromMs)
    .where('time_ms', '<', toMs)
    .where('value', 'is not', null)
    .where('env', 'is not', null)
    .execute();
}

/**
 * The time of the project's first vital point in [fromMs, toMs), or null: one index seek per vital (the index led by
 * project, name and time), so the job skips hours without points at no cost.
 */
export async function firstPointIn(db: Kysely<Database>, projectId: string, fromMs: number, toMs: number) {
  let first: number | null = null;
  for (const name of METRICS) {
    const row = await db
      .selectFrom('metric_points')
      .select((eb) => eb.fn.min('time_ms').as('t'))
      .where('project_id', '=', projectId)
      .where('name', '=', name)
      .where('time_ms', '>=', fromMs)
      .where('time_ms', '<', toMs)
      .executeTakeFirst();
    const t = row?.t === null || row?.t === undefined ? null : Number(row.t);
    if (t !== null && (first === null || t < first)) first = t;
  }
  return first;
}

/** The start of the first period of `period` with rows in [fromMs, toMs), or null. */
export async function firstRolledIn(
  db: Kysely<Database>,
  projectId: string,
  period: RollupPeriod,
  fromMs: number,
  toMs: number,
) {
  const row = await db
    .selectFrom('vital_rollups')
    .select((eb) => eb.fn.min('start_ms').as('t'))
    .where('project_id', '=', projectId)
    .where('period', '=', period)
    .where('start_ms', '>=', fromMs)
    .where('start_ms', '<', toMs)
    .executeTakeFirst();
  return row?.t === null || row?.t === undefined ? null : Number(row.t);
}

/**
 * Stores rows, each replacing the row of its key: rolling a period up again, on this replica or another at the same
 * time, leaves one row per key with what the points add up to. Sorted by key, so that two replicas storing the same
 * rows lock them in the same order (PostgreSQL).
 */
export async function upsertRollups(db: Kysely<Database>, rows: RollupRow[]): Promise<void> {
  const key = (r: RollupRow) => [r.app_id, r.env, r.route, r.vital].join('\u0000');
  rows.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  for (let i = 0; i < rows.length; i += UPSERT_CHUNK) {
    await db
      .insertInto('vital_rollups')
      .values(rows.slice(i, i + UPSERT_CHUNK))
      .onConflict((oc) =>
        oc.columns(['project_id', 'period', 'start_ms', 'app_id', 'env', 'route', 'vital']).doUpdateSet({
          samples: sql`excluded.samples`,
          good: sql`excluded.good`,
          needs_improvement: sql`excluded.needs_improvement`,
          poor: sql`excluded.poor`,
          histogram: sql`excluded.histogram`,
        }),
      )
      .execute();
  }
}

/** Which rollup rows a summary reads: the project's (one app's), of one environment or else not tests. */
export interface RolledScope {
  projectId: string;
  appId?: string;
  /** One environment; `every` for all of them, tests too; else all but tests. */
  env?: string | { every: true };
}

/** The rows of `period` starting in [fromMs, toMs) in scope, with their histograms parsed. */
export async function rollupsIn(
  db: Kysely<Database>,
  scope: RolledScope,
  period: RollupPeriod,
  fromMs: number,
  toMs: number,
): Promise<Array<RolledFigures & { startMs: number; route: string; vital: VitalName; app: string; env: string }>> {
  let q = db
    .selectFrom('vital_rollups')
    .select(['start_ms', 'app_id', 'env', 'route', 'vital', 'good', 'needs_improvement', 'poor', 'histogram'])
    .where('project_id', '=', scope.projectId)
    .where('period', '=', period)
    .where('start_ms', '>=', fromMs)
    .where('start_ms', '<', toMs);
  if (scope.appId !== undefined) q = q.where('app_id', '=', scope.appId);
  // As the raw points are read (vitals/store.ts): test runs only when asked for.
  if (scope.env === undefined) q = q.where('env', '<>', TEST_ENV);
  else if (typeof scope.env === 'string') q = q.where('env', '=', scope.env);
  const rows = await q.execute();
  return rows.map((r) => ({
    startMs: Number(r.start_ms),
    app: r.app_id,
    env: r.env,
    route: r.route,
    vital: r.vital as VitalName,
    good: r.good,
    needs_improvement: r.needs_improvement,
    poor: r.poor,
    histogram: JSON.parse(r.histogram) as EncodedHistogram,
  }));
}

export async function marksOf(db: Kysely<Database>, projectId: string): Promise<Marks | undefined> {
  const row = await db
    .selectFrom('vital_rollup_marks')
    .selectAll()
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  return (
    row && { ...row, hours_ms: Number(row.hours_ms), days_ms: Number(row.days_ms), checked_ms: Number(row.checked_ms) }
  );
}

/** The project's marks as given unless another replica made them first; then theirs. */
export async function startMarks(db: Kysely<Database>, marks: Marks): Promise<Marks> {
  await db
    .insertInto('vital_rollup_marks')
    .values(marks)
    .onConflict((oc) => oc.column('project_id').doNothing())
    .execute();
  return (await marksOf(db, marks.project_id))!;
}

/** Moves a mark forward to `toMs`; never back (another replica may be ahead). */
export async function advanceMark(
  db: Kysely<Database>,
  projectId: string,
  mark: 'hours_ms' | 'days_ms' | 'checked_ms',
  toMs: number,
): Promise<void> {
  await db
    .updateTable('vital_rollup_marks')
    .set(mark, toMs)
    .where('project_id', '=', projectId)
    .where(mark, '<', toMs)
    .execute();
}

/**
 * Marks stale each hour before `beforeMs` with a vital point received since `sinceMs` (one statement over the points
 * received since the last run, along the (project, received) index); `nowMs` says when, so a run that rolled the hour
 * up before this mark does not clear it.
 */
export async function markLateHours(
  db: Kysely<Database>,
  projectId: string,
  sinceMs: number,
  beforeMs: number,
  nowMs: number,
): Promise<void> {
  await sql`insert into vital_rollup_stale (project_id, period, start_ms, marked_ms)
    select distinct project_id, 'hour', (time_ms / 3600000) * 3600000, cast(${nowMs} as bigint) from metric_points
    where project_id = ${projectId} and received_ms >= ${sinceMs} and time_ms < ${beforeMs}
      and name in (${sql.join(METRICS)})
    on conflict (project_id, period, start_ms) do update set marked_ms = excluded.marked_ms`.execute(db);
}

export async function markStale(
  db: Kysely<Database>,
  projectId: string,
  period: RollupPeriod,
  startMs: number,
  nowMs: number,
) {
  await db
    .insertInto('vital_rollup_stale')
    .values({ project_id: projectId, period, start_ms: startMs, marked_ms: nowMs })
    .onConflict((oc) => oc.columns(['project_id', 'period', 'start_ms']).doUpdateSet({ marked_ms: nowMs }))
    .execute();
}

/** The oldest `limit` stale periods of `period`. */
export async function stalePeriods(db: Kysely<Database>, projectId: string, period: RollupPeriod, limit: number) {
  const rows = await db
    .selectFrom('vital_rollup_stale')
    .select('start_ms')
    .where('project_id', '=', projectId)
    .where('period', '=', period)
    .orderBy('start_ms')
    .limit(limit)
    .execute();
  return rows.map((r) => Number(r.start_ms));
}

/** Clears a stale mark made before `rolledFromMs`, when the period was rolled up again from what was there then. */
export async function clearStale(
  db: Kysely<Database>,
  projectId: string,
  period: RollupPeriod,
  startMs: number,
  rolledFromMs: number,
) {
  await db
    .deleteFrom('vital_rollup_stale')
    .where('project_id', '=', projectId)
    .where('period', '=', period)
    .where('start_ms', '=', startMs)
    .where('marked_ms', '<=', rolledFromMs)
    .execute();
}

const ROLLUP_KEY = ['project_id', 'period', 'start_ms', 'app_id', 'env', 'route', 'vital'];

/**
 * Retention (retention/job.ts, with the metrics' days): the project's rollups and stale marks of periods that ended
 * before the cutoff, in batches.
 */
export async function pruneRollups(
  db: Kysely<Database>,
  projectId: string,
  cutoffMs: number,
  options: BatchOptions,
): Promise<Record<string, number>> {
  const ended = sql`project_id = ${projectId} and ((period = 'hour' and start_ms < ${cutoffMs - BUCKET_MS.hour})
    or (period = 'day' and start_ms < ${cutoffMs - BUCKET_MS.day}))`;
  return {
    vital_rollups: await deleteMatching(db, { table: 'vital_rollups', key: ROLLUP_KEY }, ended, options),
    vital_rollup_stale: await deleteMatching(db, { table: 'vital_rollup_stale', key: STALE_KEY }, ended, options),
  };
}

/**
 * Erasure (erasure/job.ts): the project's rollups add up the points just deleted, so they go, with the marks; the job
 * rolls the project up again from the points left, from its first, over its next runs (the summary reads the points
 * meanwhile). Counts of the tables that had rows.
 */
export async function forgetRollups(
  db: Kysely<Database>,
  projectId: string,
  options: BatchOptions,
): Promise<Record<string, number>> {
  const inProject = sql`project_id = ${projectId}`;
  const counts: Record<string, number> = {};
  const tables = [
    { table: 'vital_rollup_marks', key: ['project_id'] },
    { table: 'vital_rollups', key: ROLLUP_KEY },
    { table: 'vital_rollup_stale', key: STALE_KEY },
  ];
  for (const rows of tables) {
    const n = await deleteMatching(db, rows, inProject, options);
    if (n > 0) counts[rows.table] = n;
  }
  return counts;
}
