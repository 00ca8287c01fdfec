import { sql, type Insertable, type Kysely } from 'kysely';
import { backfillTraceSummaries } from '../server/src/db/migrations/0031-summaries';
import type { DialectName } from '../server/src/db/connect';
import type { Database } from '../server/src/db/schema';
import { traceKey } from '../server/src/db/trace-key';
import { prng } from './harness';

/**
 * bench:sessions' `--traces` phase: spans stored directly (as ingest stores them), all within the trace search's
 * default window (the last 24 hours), the worst case for a search that groups the window's spans; then the trace
 * summaries built by the upgrade's backfill, which sums up exactly as ingest does (traces-vitals.test.ts checks that).
 */

const HOUR = 3_600_000;
const SPANS_PER_TRACE = 10;
const INSERT_BATCH = 500;
const SERVICES = ['web-app', 'web-app', 'web-app', 'checkout-api', 'search-api'] as const;
const NAMES = ['documentLoad', 'click', 'GET /api/cart', 'POST /api/checkout', 'db query', 'render', 'GET /api/search'];

const hex = (random: () => number, chars: number) =>
  Array.from({ length: chars }, () => Math.floor(random() * 16).toString(16)).join('');

function traceRows(
  random: () => number,
  projectId: string,
  appId: string,
  now: number,
): Array<Insertable<Database['spans']>> {
  const traceId = hex(random, 32);
  const start = now - Math.floor(random() * 23 * HOUR);
  const root = hex(random, 16);
  const failed = random() < 0.05;
  return Array.from({ length: SPANS_PER_TRACE }, (_, i) => {
    const begin = start + i * 3;
    const ms = i === 0 ? 200 + Math.floor(random() * 3000) : 1 + Math.floor(random() * 150);
    const service = i === 0 ? 'web-app' : SERVICES[Math.floor(random() * SERVICES.length)]!;
    return {
      project_id: projectId,
      app_id: appId,
      trace_id: traceId,
      trace_key: traceKey(traceId),
      span_id: i === 0 ? root : hex(random, 16),
      parent_span_id: i === 0 ? null : root,
      name: NAMES[Math.floor(random() * NAMES.length)]!,
      kind: 1,
      start_ns: `${begin}000000`,
      end_ns: `${begin + ms}000000`,
      time_ms: begin,
      duration_ms: ms,
      status_code: failed && i === SPANS_PER_TRACE - 1 ? 2 : 0,
      status_message: null,
      session_id: null,
      attributes: '{}',
      events: '[]',
      links: '[]',
      resource: JSON.stringify({ attributes: { 'service.name': service } }),
      scope: '{"name":"bench"}',
      received_ms: begin,
    };
  });
}

/** Stores `spans` spans (10 per trace) of the project's app, then their summaries when this server keeps them. */
export async function fillTraces(
  db: Kysely<Database>,
  dialect: DialectName,
  projectId: string,
  appId: string,
  spans: number,
): Promise<void> {
  const random = prng(31);
  const now = Date.now();
  await db.transaction().execute(async (tx) => {
    for (let i = 0; i < spans; i += INSERT_BATCH) {
      const rows = Array.from({ length: INSERT_BATCH / SPANS_PER_TRACE }, () =>
        traceRows(random, projectId, appId, now),
      ).flat();
      await tx.insertInto('spans').values(rows).execute();
    }
  });
  // A build from before the summaries (the "before" of docs/benchmarks.md) has no such table.
  const summarised = await sql`select 1 from trace_summaries limit 1`.execute(db).then(
    () => true,
    () => false,
  );
  if (summarised) await backfillTraceSummaries(db, dialect);
  if (dialect === 'postgres') await sql`analyze`.execute(db);
}

/** The trace search's views: each sort, a second page, each filter. */
export const TRACE_VIEWS = [
  { name: 'traces: default (newest)', path: '/traces?limit=50' },
  { name: 'traces: sort=duration', path: '/traces?limit=50&sort=duration' },
  { name: 'traces: sort=spans', path: '/traces?limit=50&sort=spans' },
  { name: 'traces: sort=errors', path: '/traces?limit=50&sort=errors' },
  {
    name: 'traces: second page (cursor)',
    path: (first: { next_cursor: string | null }) => `/traces?limit=50&cursor=${first.next_cursor}`,
  },
  { name: 'traces: service=search-api', path: '/traces?limit=50&service=search-api' },
  { name: 'traces: name=checkout', path: '/traces?limit=50&name=checkout' },
  { name: 'traces: status=error', path: '/traces?limit=50&status=error' },
  { name: 'traces: min_duration_ms=3000', path: '/traces?limit=50&min_duration_ms=3000' },
];
