import { sql } from 'kysely';
import type { ErrorOccurrence } from './error-records';
import type { DetectionTrx, GroupRef } from './groups';

const HOUR_MS = 3_600_000;
/** Rows per insert: five parameters each, far inside SQLite's and PostgreSQL's limits. */
const ROWS_PER_INSERT = 500;

/** An upsert's new value of `table.column`: the inserted one when `op` holds against the stored one (`least` and `greatest` are PostgreSQL's only). */
const keep = (op: '<' | '>') => (table: string, column: string) =>
  sql.raw<number>(
    `case when excluded.${column} ${op} ${table}.${column} then excluded.${column} else ${table}.${column} end`,
  );
export const lower = keep('<');
export const higher = keep('>');

/** Rows in inserts of at most {@link ROWS_PER_INSERT}. */
export function chunks<T>(rows: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) out.push(rows.slice(i, i + ROWS_PER_INSERT));
  return out;
}

/** Accumulates `value` per key. */
function groupBy<V>(
  occurrences: ErrorOccurrence[],
  keyOf: (o: ErrorOccurrence) => string | null,
  add: (previous: V | undefined, o: ErrorOccurrence) => V,
): Map<string, V> {
  const out = new Map<string, V>();
  for (const o of occurrences) {
    const key = keyOf(o);
    if (key !== null) out.set(key, add(out.get(key), o));
  }
  return out;
}

interface Span {
  first: number;
  last: number;
  count: number;
}
const widen = (previous: Span | undefined, ms: number): Span =>
  previous
    ? { first: Math.min(previous.first, ms), last: Math.max(previous.last, ms), count: previous.count + 1 }
    : { first: ms, last: ms, count: 1 };

/**
 * The issue side of counting: an issue's new errors per hour (reporter's clock, like first and last seen), the
 * releases they came from, and the sessions they hit, with the all-time session count. Runs in the counting
 * transaction, which counts each error once; every write is an upsert, so it also holds when a group is new.
 */
export async function recordIssueFacts(
  trx: DetectionTrx,
  ref: GroupRef,
  occurrences: ErrorOccurrence[],
): Promise<void> {
  const key = { project_id: ref.projectId, fingerprint: ref.fingerprint };
  const hours = groupBy<number>(
    occurrences,
    (o) => String(Math.floor(o.timeMs / HOUR_MS) * HOUR_MS),
    (n) => (n ?? 0) + 1,
  );
  for (const rows of chunks([...hours].map(([hour, count]) => ({ ...key, hour_ms: Number(hour), count })))) {
    await trx
      .insertInto('issue_hours')
      .values(rows)
      .onConflict((oc) =>
        oc
          .columns(['project_id', 'fingerprint', 'hour_ms'])
          .doUpdateSet({ count: sql<number>`issue_hours.count + excluded.count` }),
      )
      .execute();
  }
  const releases = groupBy<Span>(
    occurrences,
    (o) => o.release,
    (s, o) => widen(s, o.timeMs),
  );
  for (const rows of chunks(
    [...releases].map(([release, s]) => ({
      ...key,
      release,
      first_seen_ms: s.first,
      last_seen_ms: s.last,
      count: s.count,
    })),
  )) {
    await trx
      .insertInto('issue_releases')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['project_id', 'fingerprint', 'release']).doUpdateSet({
          first_seen_ms: lower('issue_releases', 'first_seen_ms'),
          last_seen_ms: higher('issue_releases', 'last_seen_ms'),
          count: sql<number>`issue_releases.count + excluded.count`,
        }),
      )
      .execute();
  }
  await recordIssueSessions(trx, ref, occurrences);
}

async function recordIssueSessions(trx: DetectionTrx, ref: GroupRef, occurrences: ErrorOccurrence[]): Promise<void> {
  const sessions = groupBy<Span>(
    occurrences,
    (o) => o.sessionId,
    (s, o) => widen(s, o.timeMs),
  );
  if (sessions.size === 0) return;
  const key = { project_id: ref.projectId, fingerprint: ref.fingerprint };
  for (const rows of chunks(
    [...sessions].map(([session_id, s]) => ({ ...key, session_id, first_ms: s.first, last_ms: s.last })),
  )) {
    await trx
      .insertInto('issue_sessions')
      .values(rows)
      .onConflict((oc) =>
        oc
          .columns(['project_id', 'fingerprint', 'session_id'])
          .doUpdateSet({ last_ms: higher('issue_sessions', 'last_ms') }),
      )
      .execute();
  }
  const { n } = await trx
    .selectFrom('issue_sessions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('project_id', '=', ref.projectId)
    .where('fingerprint', '=', ref.fingerprint)
    .executeTakeFirstOrThrow();
  await trx
    .updateTable('detection_groups')
    .set({ session_count: Number(n) })
    .where('project_id', '=', ref.projectId)
    .where('fingerprint', '=', ref.fingerprint)
    .execute();
}
