import type { Kysely } from 'kysely';
import type { Clock } from '../../clock';
import type { Database } from '../../db/schema';
import { routePattern } from '../../shared/route-pattern';
import { runPeriodically } from '../../shared/periodic';
import { BUCKET_MS, UNKNOWN_ROUTE, VITAL_OF_METRIC, type VitalName } from '../summary';
import { Tally } from '../tally';
import {
  advanceMark,
  clearStale,
  firstPointIn,
  firstRolledIn,
  markLateHours,
  marksOf,
  markStale,
  pointsIn,
  rollupsIn,
  stalePeriods,
  startMarks,
  upsertRollups,
  type Marks,
  type RollupRow,
} from './store';
import type { RollupPeriod } from './tables';

/**
 * The Web Vitals rollup job (docs/api.md, "Web Vitals"; docs/scale.md): per project, each UTC hour once it has closed
 * and settled ({@link SETTLE_MS}) is rolled up from its points, and each day once its hours are, from their rows.
 * Points that come for an hour already rolled up (a browser that sent late, a retried batch) mark it stale, and the
 * next run rolls it up again, and its day. Every write is an upsert keyed by the period, so runs on several replicas
 * at once store the same rows; each run does a bounded amount of work per project ({@link RollupLimits}), and the first
 * runs after the upgrade work through the points already stored, oldest first.
 */

const HOUR_MS = BUCKET_MS.hour;
const DAY_MS = BUCKET_MS.day;
/** An hour is rolled up this long after it ends: points sent at its end have come by then. */
export const SETTLE_MS = 5 * 60_000;
/** How often the job runs. */
export const ROLLUP_INTERVAL_MS = 5 * 60_000;
/**
 * Points received this long before a run are looked at again by the next one for hours already rolled up: a write
 * stamped before the run may commit after the run read its hour.
 */
const IN_FLIGHT_MS = 60_000;

export interface RollupLimits {
  /** New hours rolled up per project and run (a week: the first runs after the upgrade catch up a month in five). */
  hours: number;
  /** New days per project and run. */
  days: number;
  /** Stale hours, and stale days, rolled up again per project and run. */
  stale: number;
}
const LIMITS: RollupLimits = { hours: 168, days: 31, stale: 48 };

export interface RollupOptions {
  limits?: Partial<RollupLimits>;
  signal?: AbortSignal;
}

/** Periods rolled up by one run, new and again. */
export interface RollupResult {
  hours: number;
  days: number;
  stale: number;
}

/** One run over every project. */
export async function rollUpVitals(
  db: Kysely<Database>,
  clock: Clock,
  options: RollupOptions = {},
): Promise<RollupResult> {
  const run: Run = { db, now: clock.now(), limits: { ...LIMITS, ...options.limits }, signal: options.signal };
  const result: RollupResult = { hours: 0, days: 0, stale: 0 };
  const projects = await db.selectFrom('projects').select('id').orderBy('created_ms').execute();
  for (const { id } of projects) {
    if (run.signal?.aborted) break;
    const done = await rollUpProject(run, id);
    result.hours += done.hours;
    result.days += done.days;
    result.stale += done.stale;
  }
  return result;
}

interface Run {
  db: Kysely<Database>;
  now: number;
  limits: RollupLimits;
  signal: AbortSignal | undefined;
}

const floorTo = (ms: number, unit: number) => Math.floor(ms / unit) * unit;

async function rollUpProject(run: Run, projectId: string): Promise<RollupResult> {
  const result: RollupResult = { hours: 0, days: 0, stale: 0 };
  const marks = (await marksOf(run.db, projectId)) ?? (await firstMarks(run, projectId));
  // A project without vital points has nothing to roll up: its marks start with its first point.
  if (!marks) return result;
  await markLateHours(run.db, projectId, marks.checked_ms, marks.hours_ms, run.now);
  await advanceMark(run.db, projectId, 'checked_ms', run.now - IN_FLIGHT_MS);
  const hoursMs = await rollNew(run, projectId, 'hour', marks.hours_ms, floorTo(run.now - SETTLE_MS, HOUR_MS), result);
  result.stale += await rollStale(run, projectId, 'hour', marks.days_ms);
  await rollNew(run, projectId, 'day', marks.days_ms, floorTo(hoursMs, DAY_MS), result);
  result.stale += await rollStale(run, projectId, 'day', marks.days_ms);
  return result;
}

/** Marks from the project's first vital point: everything from its hour on is to be rolled up. */
async function firstMarks(run: Run, projectId: string): Promise<Marks | undefined> {
  const first = await firstPointIn(run.db, projectId, -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  if (first === null) return undefined;
  const hours = floorTo(first, HOUR_MS);
  return startMarks(run.db, {
    project_id: projectId,
    hours_ms: hours,
    days_ms: floorTo(hours, DAY_MS),
    checked_ms: run.now - IN_FLIGHT_MS,
  });
}

/**
 * Rolls up the periods of `period` from `fromMs` up to `closedMs` (at most the run's limit), skipping those with
 * nothing in them, and moves the mark past each; returns how far it got.
 */
async function rollNew(
  run: Run,
  projectId: string,
  period: RollupPeriod,
  fromMs: number,
  closedMs: number,
  result: RollupResult,
): Promise<number> {
  const unit = BUCKET_MS[period];
  const limit = period === 'hour' ? run.limits.hours : run.limits.days;
  const mark = period === 'hour' ? 'hours_ms' : 'days_ms';
  let at = fromMs;
  for (let n = 0; n < limit && at < closedMs && !run.signal?.aborted; n++) {
    const next =
      period === 'hour'
        ? await firstPointIn(run.db, projectId, at, closedMs)
        : await firstRolledIn(run.db, projectId, 'hour', at, closedMs);
    if (next === null) {
      at = closedMs;
      break;
    }
    const start = floorTo(next, unit);
    await rollUp(run.db, projectId, period, start);
    result[period === 'hour' ? 'hours' : 'days'] += 1;
    at = start + unit;
    await advanceMark(run.db, projectId, mark, at);
  }
  await advanceMark(run.db, projectId, mark, at);
  return at;
}

/** Rolls up again the oldest stale periods (a stale hour makes its day stale once the day is rolled up). */
async function rollStale(run: Run, projectId: string, period: RollupPeriod, daysMs: number): Promise<number> {
  const starts = await stalePeriods(run.db, projectId, period, run.limits.stale);
  for (const start of starts) {
    if (run.signal?.aborted) break;
    await rollUp(run.db, projectId, period, start);
    if (period === 'hour' && start < daysMs) await markStale(run.db, projectId, 'day', floorTo(start, DAY_MS), run.now);
    await clearStale(run.db, projectId, period, start, run.now);
  }
  return starts.length;
}

/** Rolls up one period: an hour from its points, a day from its hours. */
async function rollUp(db: Kysely<Database>, projectId: string, period: RollupPeriod, startMs: number): Promise<void> {
  const end = startMs + BUCKET_MS[period];
  const groups = new Map<string, { app: string; env: string; route: string; tally: Tally }>();
  const groupOf = (app: string, env: string, route: string, vital: VitalName) => {
    const key = JSON.stringify([app, env, route, vital]);
    return groups.get(key) ?? groups.set(key, { app, env, route, tally: new Tally(vital) }).get(key)!;
  };
  if (period === 'hour') {
    const patterns = new Map<string, string>();
    const patternOf = (path: string) => patterns.get(path) ?? patterns.set(path, routePattern(path)).get(path)!;
    for (const p of await pointsIn(db, projectId, startMs, end)) {
      const route = typeof p.route === 'string' && p.route !== '' ? patternOf(p.route) : UNKNOWN_ROUTE;
      groupOf(p.app_id, p.env!, route, VITAL_OF_METRIC.get(p.name)!).tally.addValue(p.value!);
    }
  } else {
    // Every environment, tests too: the summary filters the day's rows as it does the hours'.
    for (const r of await rollupsIn(db, { projectId, env: { every: true } }, 'hour', startMs, end)) {
      groupOf(r.app, r.env, r.route, r.vital).tally.addRolled(r);
    }
  }
  const rows: RollupRow[] = [...groups.values()].map(({ app, env, route, tally }) => {
    const { histogram, ...counts } = tally.rolledFigures();
    return {
      project_id: projectId,
      period,
      start_ms: startMs,
      app_id: app,
      env,
      route,
      vital: tally.vital,
      ...counts,
      histogram: JSON.stringify(histogram),
    };
  });
  await upsertRollups(db, rows);
}

/**
 * Runs the job now and then every `intervalMs`, never two runs at once; errors are logged, never thrown. The stop
 * function ends the run under way between two periods and waits for it.
 */
export function scheduleVitalRollups(
  db: Kysely<Database>,
  clock: Clock,
  log: (line: string) => void,
  intervalMs = ROLLUP_INTERVAL_MS,
): () => Promise<void> {
  return runPeriodically('vitals rollup', (signal) => rollUpVitals(db, clock, { signal }), log, intervalMs);
}
