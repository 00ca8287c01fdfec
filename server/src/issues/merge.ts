import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import { addBuckets, type Buckets } from '../incidents/detect/buckets';
import { lockCursor } from '../incidents/detect/cursor';
import { fingerprint } from '../incidents/detect/fingerprint';
import type { DetectionTrx, GroupRow } from '../incidents/detect/groups';
import { higher, lower } from '../incidents/detect/issue-facts';
import { incidentTitle } from '../incidents/detect/root-cause';
import type { LastEvent } from '../incidents/detect/tables';
import { topFrameOf, type TopFrame } from '../incidents/detect/top-frame';
import type { StoredMap } from '../sourcemaps/store';
import type { Symbolicator } from '../sourcemaps/types';

/** Issues looked at per upload: those whose newest error the uploaded maps may place (a flood of raw issues waits for the next upload). */
const MAX_CANDIDATES = 1000;

export interface Regrouped {
  from: string;
  into: string;
}

export interface RegroupDeps {
  db: Kysely<Database>;
  symbolicator: Symbolicator;
  clock: Clock;
}

/**
 * Once maps arrive, re-groups the issues that formed without them (docs/issues.md, "Maps that arrive late"): an issue
 * whose top frame no map placed, and whose newest error the project's maps now place, is the bug of the issue of that
 * original frame. Its errors, counts, sessions, hours, releases, test sightings and breakdown move there (created when
 * it does not exist yet), and its id answers as that issue from then on. Peers leave the split (Sentry groups anew from
 * the next event); merging it keeps one issue per bug.
 *
 * Symbolication runs outside any transaction (it may parse megabytes); each merge is one transaction that takes the
 * detector's cursor locks first, so no error of either issue is counted meanwhile, and deletes the old issue as its
 * first write, so two uploads (or two processes) merge it once.
 */
export async function regroupMapped(
  deps: RegroupDeps,
  projectId: string,
  maps: readonly StoredMap[],
): Promise<Regrouped[]> {
  const debugIds = maps.flatMap((m) => (m.debugId ? [m.debugId] : []));
  const releases = [...new Set(maps.flatMap((m) => (m.release ? [m.release] : [])))];
  const candidates = await deps.db
    .selectFrom('detection_groups')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('top_source', 'is', null)
    .where('last_event', 'is not', null)
    // A coarse filter on the newest error's JSON: its debug IDs or its release; symbolication decides.
    .where((eb) =>
      eb.or([
        ...debugIds.map((id) => eb('last_event', 'like', `%${id}%`)),
        ...(releases.length > 0 ? [eb('last_release', 'in', releases)] : []),
      ]),
    )
    .limit(MAX_CANDIDATES)
    .execute();
  const merged: Regrouped[] = [];
  for (const group of candidates) {
    const target = await placedFrame(deps.symbolicator, group);
    if (!target) continue;
    const into = fingerprint(group.app_id, group.env, {
      type: group.error_type,
      message: group.message,
      sampleMessage: group.sample_message,
      frame: target,
    });
    if (into === group.fingerprint) continue;
    if (await mergeIssue(deps, group, into, target)) merged.push({ from: group.fingerprint, into });
  }
  return merged;
}

/** The top frame of the group's newest error as the maps place it now; undefined while no map places it. */
async function placedFrame(symbolicator: Symbolicator, group: GroupRow): Promise<TopFrame | undefined> {
  const last = JSON.parse(group.last_event!) as LastEvent;
  if (!last.stacktrace) return undefined;
  const frames = await symbolicator.symbolicate({
    projectId: group.project_id,
    stacktrace: last.stacktrace,
    debugIds: new Map(Object.entries(last.debug_ids)),
    release: last.release,
  });
  const frame = topFrameOf(last.stacktrace, frames);
  return frame?.source ? frame : undefined;
}

type Merge = (table: string, column: string) => RawBuilder<number>;
const sum: Merge = (table, column) => sql.raw<number>(`${table}.${column} + excluded.${column}`);
const first: Merge = (table, column) => sql.raw<number>(`coalesce(${table}.${column}, excluded.${column})`);

/** The tables an issue's rows live in besides its group: each table's key after the fingerprint, and how two rows of one key merge. */
const ISSUE_TABLES: ReadonlyArray<{ table: string; key: string[]; merge: Record<string, Merge> }> = [
  { table: 'detection_sessions', key: ['session_id'], merge: { last_ms: higher } },
  { table: 'issue_hours', key: ['hour_ms'], merge: { count: sum } },
  { table: 'issue_releases', key: ['release'], merge: { first_seen_ms: lower, last_seen_ms: higher, count: sum } },
  { table: 'issue_sessions', key: ['session_id'], merge: { first_ms: lower, last_ms: higher } },
  { table: 'issue_test_sessions', key: ['session_id'], merge: { seen_ms: higher } },
  { table: 'issue_test_runs', key: ['run_id'], merge: { last_ms: higher } },
  { table: 'issue_tests', key: ['test_id'], merge: { last_ms: higher, title: first } },
  { table: 'issue_facets', key: ['facet', 'value'], merge: { count: sum, last_ms: higher } },
];

/** Moves the rows of issue `from` in `table` to issue `into`, merging those whose key `into` has already. */
async function moveRows(
  trx: DetectionTrx,
  spec: (typeof ISSUE_TABLES)[number],
  projectId: string,
  from: string,
  into: string,
): Promise<void> {
  const { table, key, merge } = spec;
  const values = Object.keys(merge);
  const columns = sql.raw([...key, ...values].join(', '));
  const updates = sql.join(values.map((c) => sql`${sql.raw(c)} = ${merge[c]!(table, c)}`));
  await sql`insert into ${sql.table(table)} (project_id, fingerprint, ${columns})
    select project_id, ${into}, ${columns} from ${sql.table(table)} where project_id = ${projectId} and fingerprint = ${from}
    on conflict (project_id, fingerprint, ${sql.raw(key.join(', '))}) do update set ${updates}`.execute(trx);
  await sql`delete from ${sql.table(table)} where project_id = ${projectId} and fingerprint = ${from}`.execute(trx);
}

/** Rows of `table` that issues `from` and `into` both have: counted once in the merged issue. */
async function shared(
  trx: DetectionTrx,
  table: 'issue_test_sessions' | 'issue_test_runs',
  column: 'session_id' | 'run_id',
  projectId: string,
  from: string,
  into: string,
): Promise<number> {
  const { rows } = await sql<{
    n: number;
  }>`select count(*) as n from ${sql.table(table)} a where a.project_id = ${projectId} and a.fingerprint = ${from}
    and exists (select 1 from ${sql.table(table)} b where b.project_id = a.project_id and b.fingerprint = ${into} and b.${sql.raw(column)} = a.${sql.raw(column)})`.execute(
    trx,
  );
  return Number(rows[0]?.n ?? 0);
}

const earliest = (groups: GroupRow[]) => groups.reduce((a, b) => (b.first_seen_ms < a.first_seen_ms ? b : a));
const latest = (groups: GroupRow[]) => groups.reduce((a, b) => (b.last_seen_ms > a.last_seen_ms ? b : a));

/** Merges issue `group` into issue `into` (placed on `frame`) in one transaction; false when another merge took it first. */
async function mergeIssue(
  { db, clock }: RegroupDeps,
  group: GroupRow,
  into: string,
  frame: TopFrame,
): Promise<boolean> {
  const projectId = group.project_id;
  return db.transaction().execute(async (trx) => {
    // Counting takes these first (consume.ts): no error of either issue is counted while the rows move.
    await lockCursor(trx, 'logs');
    await lockCursor(trx, 'spans');
    const from = await trx
      .deleteFrom('detection_groups')
      .where('project_id', '=', projectId)
      .where('fingerprint', '=', group.fingerprint)
      // The newest error that was symbolicated: a newer one may belong elsewhere, and waits for the next upload.
      .where('last_event', '=', group.last_event)
      .returningAll()
      .executeTakeFirst();
    if (!from) return false;
    const target = await trx
      .selectFrom('detection_groups')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('fingerprint', '=', into)
      .executeTakeFirst();
    const overlap = {
      sessions: target ? await shared(trx, 'issue_test_sessions', 'session_id', projectId, from.fingerprint, into) : 0,
      runs: target ? await shared(trx, 'issue_test_runs', 'run_id', projectId, from.fingerprint, into) : 0,
    };
    for (const spec of ISSUE_TABLES) await moveRows(trx, spec, projectId, from.fingerprint, into);
    const merged = mergedGroup(from, target, into, frame, overlap);
    const title = incidentTitle({
      errorType: merged.error_type,
      sampleMessage: merged.sample_message,
      topFile: merged.top_file,
    });
    const incidents = await mergeIncidents(trx, { from, target, into, title }, clock.now());
    const { n } = await trx
      .selectFrom('issue_sessions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('project_id', '=', projectId)
      .where('fingerprint', '=', into)
      .executeTakeFirstOrThrow();
    const row = { ...merged, ...incidents, session_count: Number(n) };
    if (target)
      await trx
        .updateTable('detection_groups')
        .set(row)
        .where('project_id', '=', projectId)
        .where('fingerprint', '=', into)
        .execute();
    else await trx.insertInto('detection_groups').values(row).execute();
    const now = clock.now();
    await trx
      .updateTable('issue_merges')
      .set({ into_fingerprint: into })
      .where('project_id', '=', projectId)
      .where('into_fingerprint', '=', from.fingerprint)
      .execute();
    await trx
      .insertInto('issue_merges')
      .values({ project_id: projectId, from_fingerprint: from.fingerprint, into_fingerprint: into, merged_ms: now })
      .onConflict((oc) =>
        oc.columns(['project_id', 'from_fingerprint']).doUpdateSet({ into_fingerprint: into, merged_ms: now }),
      )
      .execute();
    return true;
  });
}

/**
 * The merged issue: the target's identity and status when it exists (else the old issue's, on the original frame), the
 * sums of both counts, and the first and last errors of both (production ones, when either has any).
 */
function mergedGroup(
  from: GroupRow,
  target: GroupRow | undefined,
  into: string,
  frame: TopFrame,
  overlap: { sessions: number; runs: number },
): GroupRow {
  const both = target ? [from, target] : [from];
  const production = both.filter((g) => Number(g.total_count) > 0);
  const timed = production.length > 0 ? production : both;
  const [firstOf, lastOf] = [earliest(timed), latest(timed)];
  const base: GroupRow = target ?? {
    ...from,
    fingerprint: into,
    top_frame: frame.label,
    top_file: frame.file,
    top_source: frame.source ? JSON.stringify(frame.source) : null,
  };
  const total = (column: 'total_count' | 'test_count' | 'test_session_count' | 'test_run_count') =>
    Number(from[column]) + Number(target?.[column] ?? 0);
  return {
    ...base,
    first_seen_ms: firstOf.first_seen_ms,
    first_release: firstOf.first_release,
    caught_in_tests: earliest(both).caught_in_tests,
    last_seen_ms: lastOf.last_seen_ms,
    last_release: lastOf.last_release,
    last_event: lastOf.last_event,
    last_received_ms: Math.max(...both.map((g) => Number(g.last_received_ms))),
    total_count: total('total_count'),
    test_count: total('test_count'),
    test_session_count: total('test_session_count') - overlap.sessions,
    test_run_count: total('test_run_count') - overlap.runs,
    buckets: JSON.stringify(both.map((g) => JSON.parse(g.buckets) as Buckets).reduce(addBuckets)),
  };
}

interface IncidentMerge {
  from: GroupRow;
  target: GroupRow | undefined;
  into: string;
  /** The merged issue's incident title: its frame now names the original file. */
  title: string;
}

/**
 * The merged issue's incident: the open one of either moves with it (re-keyed to the new id, titled anew); when both
 * have one, the target's stays and the old issue's is resolved, `by` naming the merge (without notification: the
 * bug's incident is still open). The errors of the issue without the incident count as before it.
 */
async function mergeIncidents(trx: DetectionTrx, { from, target, into, title }: IncidentMerge, now: number) {
  const cols = (g: GroupRow) => ({
    incident_id: g.incident_id,
    incident_base_total: g.incident_base_total,
    incident_open_count: g.incident_open_count,
    reset_total: g.reset_total,
  });
  if (!target) {
    if (from.incident_id !== null) await rekeyIncident(trx, from, into, title);
    return cols(from);
  }
  const kept = target.incident_id === null && from.incident_id !== null ? from : target;
  const other = kept === from ? target : from;
  if (kept === from) await rekeyIncident(trx, from, into, title);
  else if (from.incident_id !== null) {
    await trx
      .updateTable('incidents')
      .set({
        status: 'resolved',
        resolved_ms: now,
        resolved_by: `merged into issue ${into}`,
        open_key: null,
        updated_ms: now,
      })
      .where('project_id', '=', from.project_id)
      .where('id', '=', from.incident_id)
      .where('status', '!=', 'resolved')
      .execute();
  }
  const before = Number(other.total_count);
  return {
    ...cols(kept),
    incident_base_total: Number(kept.incident_base_total) + before,
    reset_total: Number(kept.reset_total) + before,
  };
}

/** Re-keys the old issue's incident to the merged issue's id, keeping it the one open incident of that key. */
async function rekeyIncident(trx: DetectionTrx, from: GroupRow, into: string, title: string): Promise<void> {
  await trx
    .updateTable('incidents')
    .set((eb) => ({
      fingerprint: into,
      title,
      open_key: eb.case().when('open_key', 'is', null).then(null).else(`${from.project_id}:${into}`).end(),
    }))
    .where('project_id', '=', from.project_id)
    .where('id', '=', from.incident_id!)
    .execute();
}
