import { sql, type Kysely, type Migration } from 'kysely';
import { SEVERITY_RANK_SQL } from '../../incidents/store';
import { LATENCY_SQL } from '../../notify/deliveries/store';
import { SUMMARY_LIMITS } from '../../traces/summary';
import type { DialectName } from '../connect';

/**
 * Summaries instead of scans (docs/architecture.md, "At scale"): a row per trace kept at ingest (traces/tables.ts), so
 * the trace search walks one index per sort instead of grouping every span of the window. Existing spans are summed up
 * here, with the same rules the writers apply (traces/summary.ts), so an upgraded server's search finds them.
 */
export function summariesMigration(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('trace_summaries')
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('trace_key', 'bigint', (c) => c.notNull())
        .addColumn('trace_id', 'text', (c) => c.notNull())
        .addColumn('start_ms', 'bigint')
        .addColumn('start_ns', 'text')
        .addColumn('end_ns', 'text')
        .addColumn('duration_ns', 'bigint')
        .addColumn('span_count', 'integer', (c) => c.notNull())
        .addColumn('error_count', 'integer', (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('session_id', 'text')
        .addColumn('root_span_id', 'text')
        .addColumn('root_name', 'text')
        .addColumn('root_service', 'text')
        .addColumn('root_attributes', 'text')
        .addColumn('root_has_parent', 'integer')
        .addColumn('root_ms', 'bigint')
        .addColumn('services', 'text', (c) => c.notNull())
        .addColumn('names', 'text', (c) => c.notNull())
        .addColumn('app_ids', 'text', (c) => c.notNull())
        .addColumn('last_received_ms', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('trace_summaries_pk', ['project_id', 'trace_key', 'trace_id'])
        .execute();
      // One index per sort of the search, each with the trace id its ties are broken by; retention's by receipt.
      for (const [name, column] of [
        ['start', 'start_ms'],
        ['duration', 'duration_ns'],
        ['spans', 'span_count'],
        ['errors', 'error_count'],
        ['received', 'last_received_ms'],
      ] as const)
        await db.schema
          .createIndex(`trace_summaries_${name}`)
          .on('trace_summaries')
          .columns(['project_id', column, 'trace_id'])
          .execute();
      await backfillTraceSummaries(db, dialect);
      await sessionPagesTables(db, dialect);
      await listingSortIndexes(db);
    },
  };
}

/** Rows of `spans x` of the trace of row `g`. */
const OF_TRACE = 'x.project_id = g.project_id and x.trace_key = g.trace_key and x.trace_id = g.trace_id';

/** A JSON array of the first `max` distinct non-null values of `value` over the trace's spans. */
function listOf(dialect: DialectName, value: string, max: number): string {
  const distinct = `select distinct ${value} as v from spans x where ${OF_TRACE} and ${value} is not null limit ${max}`;
  return dialect === 'postgres'
    ? `(select coalesce(jsonb_agg(v), '[]'::jsonb)::text from (${distinct}) d)`
    : `(select json_group_array(v) from (${distinct}))`;
}

/** Sums up the stored spans and exception log records, as traces/summary.ts does for each write. */
export async function backfillTraceSummaries<DB>(db: Kysely<DB>, dialect: DialectName): Promise<void> {
  const service = (alias: string) =>
    dialect === 'postgres'
      ? `(${alias}.resource::jsonb -> 'attributes' ->> 'service.name')`
      : `json_extract(${alias}.resource, '$.attributes."service.name"')`;
  const exceptionLog = `l.attributes like '%"exception.type"%'`;
  const ofTraceLogs = `l.project_id = g.project_id and l.trace_key = g.trace_key and l.trace_id = g.trace_id`;
  await sql
    .raw(
      `insert into trace_summaries (project_id, trace_key, trace_id, start_ms, start_ns, end_ns, duration_ns, span_count,
        error_count, status_code, session_id, root_span_id, root_name, root_service, root_attributes, root_has_parent,
        root_ms, services, names, app_ids, last_received_ms)
      select g.project_id, g.trace_key, g.trace_id, g.start_ms, cast(g.start_ns as text), cast(g.end_ns as text),
        g.end_ns - g.start_ns, g.span_count,
        g.error_count + (select count(*) from logs l where ${ofTraceLogs} and ${exceptionLog}),
        g.status_code, g.session_id, r.span_id, r.name, ${service('r')}, r.attributes,
        case when r.parent_span_id is null then 0 else 1 end, r.time_ms,
        ${listOf(dialect, service('x'), SUMMARY_LIMITS.services)}, ${listOf(dialect, 'x.name', SUMMARY_LIMITS.names)},
        ${listOf(dialect, 'x.app_id', SUMMARY_LIMITS.app_ids)},
        g.last_received_ms
      from (
        select project_id, trace_key, trace_id, min(time_ms) as start_ms, min(cast(start_ns as bigint)) as start_ns,
          max(cast(end_ns as bigint)) as end_ns, count(*) as span_count,
          sum(case when status_code = 2 or events like '%"name":"exception"%' then 1 else 0 end) as error_count,
          max(status_code) as status_code, min(session_id) as session_id, max(received_ms) as last_received_ms
        from spans group by project_id, trace_key, trace_id
      ) g
      join (
        select s.*, row_number() over (partition by project_id, trace_key, trace_id
          order by case when parent_span_id is null then 0 else 1 end, time_ms, span_id) as root_rank
        from spans s
      ) r on r.project_id = g.project_id and r.trace_key = g.trace_key and r.trace_id = g.trace_id and r.root_rank = 1`,
    )
    .execute(db);
  // Exception log records of traces none of whose spans were received (yet): their count waits for the spans.
  await sql
    .raw(
      `insert into trace_summaries (project_id, trace_key, trace_id, span_count, error_count, services, names, app_ids,
        last_received_ms)
      select l.project_id, l.trace_key, l.trace_id, 0, count(*), '[]', '[]', '[]', max(l.received_ms)
      from logs l
      where l.trace_id is not null and ${exceptionLog} and not exists (select 1 from trace_summaries g where ${ofTraceLogs})
      group by l.project_id, l.trace_key, l.trace_id`,
    )
    .execute(db);
}

/**
 * The page paths of the sessions (sessions/tables.ts), filled from the sessions' stored lists of pages. The pairs' index
 * by receipt serves retention, the one by session erasure.
 */
async function sessionPagesTables(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('page_paths')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('page_paths_pk', ['project_id', 'path'])
    .execute();
  await db.schema
    .createTable('session_pages')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('received_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('session_pages_pk', ['project_id', 'path', 'session_id'])
    .execute();
  await db.schema
    .createIndex('session_pages_received')
    .on('session_pages')
    .columns(['project_id', 'received_ms'])
    .execute();
  await db.schema
    .createIndex('session_pages_session')
    .on('session_pages')
    .columns(['project_id', 'session_id'])
    .execute();
  const pages =
    dialect === 'postgres'
      ? 'sessions s cross join lateral jsonb_array_elements_text(s.urls::jsonb) as j(value)'
      : 'sessions s, json_each(s.urls) j';
  await sql
    .raw(
      `insert into session_pages (project_id, path, session_id, received_ms)
      select distinct s.project_id, j.value, s.session_id, s.last_received_ms from ${pages} where s.urls is not null`,
    )
    .execute(db);
  await sql
    .raw('insert into page_paths (project_id, path) select distinct project_id, path from session_pages')
    .execute(db);
}

/**
 * The console's list orders that had no index of their own, each within a project with the id that breaks its ties,
 * so that a page is an index walk: incidents by last update and by severity (an index on the rank's expression, the
 * same text the listing sorts by), issues by first seen, the delivery log by latency.
 */
async function listingSortIndexes(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('incidents_project_updated')
    .on('incidents')
    .columns(['project_id', 'updated_ms', 'id'])
    .execute();
  await sql
    .raw(`create index incidents_project_severity on incidents (project_id, (${SEVERITY_RANK_SQL}), id)`)
    .execute(db);
  await db.schema
    .createIndex('detection_groups_first_seen_ms')
    .on('detection_groups')
    .columns(['project_id', 'first_seen_ms', 'fingerprint'])
    .execute();
  await sql.raw(`create index deliveries_log_latency on deliveries (project_id, (${LATENCY_SQL}), id)`).execute(db);
}
