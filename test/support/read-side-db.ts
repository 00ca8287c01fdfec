import type { Insertable } from 'kysely';
import { openDatabase, type DatabaseHandle } from '../../server/src/db/connect';
import { migrateToLatest } from '../../server/src/db/migrate';
import type { Database } from '../../server/src/db/schema';
import { traceKey } from '../../server/src/db/trace-key';

/** A migrated in-memory SQLite database with one project and its app `web`: the read-side stores' unit suites. */
export async function readSideDatabase(): Promise<DatabaseHandle & { projectId: string; appId: string }> {
  const handle = openDatabase(':memory:');
  await migrateToLatest(handle);
  await handle.db.insertInto('tenants').values({ id: 't1', name: 't', created_ms: 0 }).execute();
  await handle.db.insertInto('projects').values({ id: 'p1', tenant_id: 't1', name: 'p', created_ms: 0 }).execute();
  await handle.db.insertInto('apps').values({ id: 'a1', project_id: 'p1', name: 'web', created_ms: 0 }).execute();
  return Object.assign(handle, { projectId: 'p1', appId: 'a1' });
}

/** A session summary row of project p1 / app a1; `over` sets the facts a test filters on. */
export function sessionRow(id: string, over: Partial<Insertable<Database['sessions']>> = {}) {
  return {
    project_id: 'p1',
    session_id: id,
    app_id: 'a1',
    first_ms: 1000,
    last_ms: 2000,
    span_count: 0,
    log_count: 0,
    metric_count: 0,
    replay_chunk_count: 0,
    recipe_count: 0,
    last_received_ms: 2000,
    duration_ms: 1000,
    error_count: 0,
    page_count: 0,
    ...over,
  } satisfies Insertable<Database['sessions']>;
}

/** A span of project p1 / app a1 in `traceId`, starting at `ms` and lasting `durationMs`. */
export function spanRow(traceId: string, spanId: string, ms: number, durationMs: number, over = {}) {
  const startNs = BigInt(ms) * 1_000_000n;
  return {
    project_id: 'p1',
    app_id: 'a1',
    trace_id: traceId,
    trace_key: traceKey(traceId),
    span_id: spanId,
    parent_span_id: null,
    name: 'GET /products',
    kind: 1,
    start_ns: String(startNs),
    end_ns: String(startNs + BigInt(durationMs) * 1_000_000n),
    time_ms: ms,
    duration_ms: durationMs,
    status_code: 0,
    status_message: null,
    session_id: null,
    attributes: '{}',
    events: '[]',
    links: '[]',
    resource: '{"attributes":{"service.name":"shop"}}',
    scope: '{}',
    received_ms: ms,
    ...over,
  } satisfies Insertable<Database['spans']>;
}
