import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Clock } from '../../clock';
import type { Database } from '../../db/schema';
import { lockCursor } from '../../incidents/detect/cursor';
import type { DetectionTrx, GroupRow } from '../../incidents/detect/groups';
import { higher, lower } from '../../incidents/detect/issue-facts';
import { incidentTitle } from '../../incidents/detect/root-cause';
import type { TopFrame } from '../../incidents/detect/top-frame';
import { mergedGroup } from '../merged-group';
import { mergeIncidents } from './merge-incidents';

/** Issues looked at per upload: those whose newest error the uploaded maps may place (a flood of raw issues waits for the next upload). */
const MAX_CANDIDATES = 1000;

/** The project's issues that no map placed and whose newest error names one of these debug IDs or releases. */
export function mergeCandidates(
  db: Kysely<Database>,
  projectId: string,
  debugIds: readonly string[],
  releases: readonly string[],
): Promise<GroupRow[]> {
  return (
    db
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
      .execute()
  );
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

/** Merges issue `group` into issue `into` (placed on `frame`) in one transaction; false when another merge took it first. */
export async function mergeIssue(
  { db, clock }: { db: Kysely<Database>; clock: Clock },
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
