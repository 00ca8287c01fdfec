import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import { LIMIT_SIGNALS, limitsProblem, type LimitDefaults, type LimitSignal, type SignalLimits } from './signals';
import { limitsDb } from './tables';

/** A project's own values, per signal and limit; what it did not set follows the server. */
export type ProjectLimits = Partial<Record<LimitSignal, Partial<SignalLimits>>>;

/** A change: per signal, values to set, or null to go back to the server's default. */
export type LimitsChange = Partial<Record<LimitSignal, Partial<Record<keyof SignalLimits, number | null>>>>;

const isSignal = (s: string): s is LimitSignal => (LIMIT_SIGNALS as readonly string[]).includes(s);
const FIELDS = ['rate', 'burst', 'daily'] as const;

/** One project's own settings. */
export async function projectLimits(db: Kysely<Database>, projectId: string): Promise<ProjectLimits> {
  const rows = await limitsDb(db)
    .selectFrom('project_limits')
    .selectAll()
    .where('project_id', '=', projectId)
    .execute();
  const own: ProjectLimits = {};
  for (const row of rows) {
    if (!isSignal(row.signal)) continue;
    const set = FIELDS.filter((f) => row[f] !== null).map((f) => [f, Number(row[f])]);
    if (set.length > 0) own[row.signal] = Object.fromEntries(set);
  }
  return own;
}

/** The limits in force: the project's own values over the server's defaults. */
export function effectiveLimits(defaults: LimitDefaults, own: ProjectLimits): LimitDefaults {
  return Object.fromEntries(LIMIT_SIGNALS.map((s) => [s, { ...defaults[s], ...own[s] }])) as LimitDefaults;
}

/**
 * The first signal whose limits would not work after `change` (a bucket smaller than the rate or than the largest
 * request), with why; undefined when all would.
 */
export function changeProblem(
  defaults: LimitDefaults,
  own: ProjectLimits,
  change: LimitsChange,
  bodyLimit: number,
): { signal: LimitSignal; problem: string } | undefined {
  const after = effectiveLimits(defaults, own);
  for (const [signal, values] of Object.entries(change) as [LimitSignal, LimitsChange[LimitSignal]][]) {
    for (const [field, v] of Object.entries(values ?? {}))
      after[signal] = { ...after[signal], [field]: v ?? defaults[signal][field as keyof SignalLimits] };
    const problem = limitsProblem(signal, after[signal], bodyLimit);
    if (problem) return { signal, problem };
  }
  return undefined;
}

/** Applies a change to a project's settings; a signal left with no value of its own loses its row. */
export async function changeProjectLimits(
  db: Kysely<Database>,
  clock: Clock,
  projectId: string,
  change: LimitsChange,
  by: string,
): Promise<void> {
  const ldb = limitsDb(db);
  const own = await projectLimits(db, projectId);
  for (const signal of LIMIT_SIGNALS) {
    const values = change[signal];
    if (values === undefined) continue;
    const merged = { ...own[signal] };
    for (const field of FIELDS) {
      const value = values[field];
      if (value === null) delete merged[field];
      else if (value !== undefined) merged[field] = value;
    }
    await ldb.deleteFrom('project_limits').where('project_id', '=', projectId).where('signal', '=', signal).execute();
    if (Object.keys(merged).length === 0) continue;
    await ldb
      .insertInto('project_limits')
      .values({
        project_id: projectId,
        signal,
        rate: merged.rate ?? null,
        burst: merged.burst ?? null,
        daily: merged.daily ?? null,
        updated_ms: clock.now(),
        updated_by: by,
      })
      .execute();
  }
}
