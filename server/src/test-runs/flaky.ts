import { sql, type Kysely, type SqlBool } from 'kysely';
import type { DialectName } from '../db/connect';
import type { Database } from '../db/schema';
import { iso } from '../shared/time';
import { appendTo } from './json';
import type { Outcome } from './schemas';

/** Most tests one read names, and most flaky tests whose history the list reads. */
const MAX_CANDIDATES = 1000;
/** Flips each item lists. */
const LAST_FLIPS = 10;

export interface FlakyOptions {
  runs: number;
  branch?: string;
  limit: number;
}

interface Point {
  test_key: string;
  run_id: string;
  run_started_ms: number;
  commit_sha: string | null;
  outcome: string;
}

/** Runs of every branch started since `since` (the runs' index, at most 10 times the largest window counted). */
async function runsSince(db: Kysely<Database>, projectId: string, since: number): Promise<number> {
  const row = await db
    .selectFrom((eb) =>
      eb
        .selectFrom('test_runs')
        .select('run_id')
        .where('project_id', '=', projectId)
        .where('started_ms', '>=', since)
        .limit(5000)
        .as('r'),
    )
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The newest `runs` runs (of the branch): their commits by id, and the start of the oldest, which bounds every index range below. */
async function windowOf(db: Kysely<Database>, projectId: string, o: FlakyOptions) {
  let q = db.selectFrom('test_runs').select(['run_id', 'started_ms', 'commit_sha']).where('project_id', '=', projectId);
  if (o.branch !== undefined) q = q.where('branch', '=', o.branch);
  const runs = await q.orderBy('started_ms', 'desc').orderBy('run_id', 'desc').limit(o.runs).execute();
  return { commits: new Map(runs.map((r) => [r.run_id, r.commit_sha])), since: runs[runs.length - 1]?.started_ms };
}

interface Window {
  db: Kysely<Database>;
  dialect: DialectName;
  projectId: string;
  since: number;
  commits: Map<string, string | null>;
  branch: string | undefined;
}

/**
 * The window's results of some outcomes, or of some tests (any outcome and commit unless told): the former read from
 * test_results_outcome, the latter from the covering test_results_history. With tests named, SQLite is kept off the
 * outcome index (the unary `+`), which it would otherwise take for the more selective, having no statistics.
 */
async function resultsIn(
  w: Window,
  of: { outcomes?: readonly string[]; keys?: readonly string[]; commits?: readonly string[] },
): Promise<Point[]> {
  let q = w.db
    .selectFrom('test_results')
    .select(['test_key', 'run_id', 'run_started_ms', 'commit_sha', 'outcome'])
    .where('project_id', '=', w.projectId)
    .where('run_started_ms', '>=', w.since);
  if (of.keys) q = q.where('test_key', 'in', of.keys);
  if (of.commits) q = q.where('commit_sha', 'in', of.commits);
  const outcome = of.keys && w.dialect === 'sqlite' ? sql`+outcome` : sql.ref('outcome');
  if (of.outcomes) q = q.where(sql<SqlBool>`${outcome} in (${sql.join(of.outcomes)})`);
  if (w.branch !== undefined) q = q.where('branch', '=', w.branch);
  // Ordered only when tests are named, as their index reads them: an ORDER BY would lead SQLite to walk that index whole.
  if (of.keys) q = q.orderBy('test_key').orderBy('run_started_ms').orderBy('run_id');
  return (await q.execute()).filter((r) => w.commits.has(r.run_id));
}

/**
 * The results of these tests in these runs of the window, looked up by the results' primary key (project, run, test):
 * runs × tests lookups, where {@link resultsIn} would walk each test's results over every run since the window's start
 * (of every branch).
 */
async function resultsOf(
  w: Window,
  runIds: readonly string[],
  keys: readonly string[],
  outcomes?: readonly string[],
): Promise<Point[]> {
  const points: Point[] = [];
  // Bounded IN lists: at most MAX_CANDIDATES names of each per statement.
  for (let r = 0; r < runIds.length; r += MAX_CANDIDATES) {
    for (let k = 0; k < keys.length; k += MAX_CANDIDATES) {
      const [runs, tests] = [runIds.slice(r, r + MAX_CANDIDATES), keys.slice(k, k + MAX_CANDIDATES)];
      const rows =
        w.dialect === 'sqlite'
          ? // SQLite, without statistics, would walk test_results_history by test_key over every run: the primary key's
            // index (test_results_pk, which SQLite names sqlite_autoindex_test_results_1) is named.
            (
              await sql<Point>`select test_key, run_id, run_started_ms, commit_sha, outcome from test_results indexed by sqlite_autoindex_test_results_1
                where project_id = ${w.projectId} and run_id in (${sql.join(runs)}) and test_key in (${sql.join(tests)})`.execute(
                w.db,
              )
            ).rows
          : await w.db
              .selectFrom('test_results')
              .select(['test_key', 'run_id', 'run_started_ms', 'commit_sha', 'outcome'])
              .where('project_id', '=', w.projectId)
              .where('run_id', 'in', runs)
              .where('test_key', 'in', tests)
              .execute();
      // The outcome is checked here, not in SQL, so that no planner takes the outcome index instead.
      points.push(...rows.filter((p) => !outcomes || outcomes.includes(p.outcome)));
    }
  }
  return points.sort((a, b) =>
    a.test_key < b.test_key
      ? -1
      : a.test_key > b.test_key
        ? 1
        : a.run_started_ms - b.run_started_ms || (a.run_id < b.run_id ? -1 : 1),
  );
}

/**
 * The tests to describe: flaky in some run of the window, or failed at a commit where they also passed. Only the
 * window's failed and flaky results are read, then the passes of the tests that only failed, so a build that broke
 * every test costs one small read, not every test's history.
 */
async function flakyKeys(w: Window): Promise<string[]> {
  const bad = await resultsIn(w, { outcomes: ['unexpected', 'flaky'] });
  const keys = new Set(bad.filter((r) => r.outcome === 'flaky').map((r) => r.test_key));
  const failedAt = new Set(
    bad.filter((r) => !keys.has(r.test_key) && r.commit_sha !== null).map((r) => `${r.test_key}\n${r.commit_sha}`),
  );
  const onlyFailed = [...new Set([...failedAt].map((k) => k.split('\n')[0]!))];
  const commits = [...new Set([...failedAt].map((k) => k.split('\n')[1]!))];
  // The passes at those commits can only be in the window's runs of those commits (a few per commit): looked up by
  // the primary key, not each test's results walked over the whole window.
  const runsAt = [...w.commits]
    .filter(([, commit]) => commit !== null && commits.includes(commit))
    .map(([runId]) => runId);
  if (onlyFailed.length > 0 && runsAt.length > 0) {
    for (const p of await resultsOf(w, runsAt, onlyFailed, ['expected']))
      if (failedAt.has(`${p.test_key}\n${p.commit_sha}`)) keys.add(p.test_key);
  }
  return [...keys];
}

const passed = (o: string) => o === 'expected' || o === 'flaky';

/**
 * One test's figures over its results in the window, oldest first, or undefined when it is not flaky: flaky when it
 * passed on retry in some run, or passed in one run and failed in another at the same commit. A flip is a flaky run, or
 * a run whose result (passed or failed) differs from the run before; skipped runs are left out.
 */
function figures(points: readonly Point[]) {
  const ran = points.filter((p) => p.outcome !== 'skipped');
  const byCommit = new Map<string, Set<boolean>>();
  for (const p of ran)
    if (p.commit_sha !== null)
      byCommit.set(p.commit_sha, (byCommit.get(p.commit_sha) ?? new Set()).add(passed(p.outcome)));
  const flakyRuns = ran.filter((p) => p.outcome === 'flaky').length;
  if (flakyRuns === 0 && ![...byCommit.values()].some((seen) => seen.size === 2)) return undefined;
  const flips = ran.filter(
    (p, i) => p.outcome === 'flaky' || (i > 0 && passed(p.outcome) !== passed(ran[i - 1]!.outcome)),
  );
  return {
    runs: ran.length,
    flaky_runs: flakyRuns,
    flips: flips.length,
    flip_rate: Math.round((flips.length / ran.length) * 10_000) / 10_000,
    last_flips: flips
      .slice(-LAST_FLIPS)
      .reverse()
      .map((p) => ({
        run_id: p.run_id,
        commit: p.commit_sha,
        at: iso(p.run_started_ms),
        outcome: p.outcome as Outcome,
      })),
  };
}

/**
 * Flaky tests over the newest N runs, highest flip rate first. Reads the runs' index, then the window's failed and
 * flaky results (test_results_outcome), then only the flaky tests' results in the window (the covering
 * test_results_history): never every result of N runs.
 */
export async function flakyTests(db: Kysely<Database>, dialect: DialectName, projectId: string, o: FlakyOptions) {
  const { commits, since } = await windowOf(db, projectId, o);
  if (since === undefined) return [];
  const w: Window = { db, dialect, projectId, since, commits, branch: o.branch };
  const keys = (await flakyKeys(w)).slice(0, MAX_CANDIDATES);
  if (keys.length === 0) return [];
  // A branch's window is sparse when other branches ran meanwhile: then its runs are looked up by the primary key,
  // rather than every test's results since the window's start walked and other branches' dropped.
  const sparse = o.branch !== undefined && (await runsSince(db, projectId, since)) > 2 * commits.size;
  const [rows, cases] = await Promise.all([
    sparse ? resultsOf(w, [...commits.keys()], keys) : resultsIn(w, { keys }),
    db
      .selectFrom('test_cases')
      .select(['test_key', 'title', 'file', 'project'])
      .where('project_id', '=', projectId)
      .where('test_key', 'in', keys)
      .execute(),
  ]);
  const points = new Map<string, Point[]>();
  for (const r of rows) appendTo(points, r.test_key, r);
  const items = cases.flatMap((c) => {
    const f = figures(points.get(c.test_key) ?? []);
    return f ? [{ test_key: c.test_key, title: c.title, file: c.file, project: c.project, ...f }] : [];
  });
  items.sort((a, b) => b.flip_rate - a.flip_rate || b.flaky_runs - a.flaky_runs || (a.test_key < b.test_key ? -1 : 1));
  return items.slice(0, o.limit);
}
