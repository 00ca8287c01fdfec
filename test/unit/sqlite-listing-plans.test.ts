import { Kysely, SqliteDialect, sql, type CompiledQuery, type SqlBool } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { evaluateRule } from '../../server/src/alerts/query/index';
import type { AlertQuery, Signal } from '../../server/src/alerts/rule';
import type { Database, TelemetryTable } from '../../server/src/db/schema';
import { listRecords } from '../../server/src/records/store';
import { searchIds } from '../../server/src/search/find';
import { samplingSummary, sessionFacets } from '../../server/src/sessions/store';
import { searchTraces, traceSpans } from '../../server/src/traces/store';
import { readSideDatabase } from '../support/read-side-db';

/**
 * SQLite plans without statistics (the server never runs ANALYZE), so which index a listing walks is decided by the
 * query and the indexes alone, whatever the data: these plans are the ones a database of a million sessions gets. A
 * session's or a trace's records must come from its own index, not from a walk of the project's records in time
 * order (migration 0033: 100 ms at 100,000 spans, growing with the project).
 */

const handle = await readSideDatabase();
afterAll(() => handle.db.destroy());

/** The statements `run` sends, each with the plan SQLite makes for it. */
async function plansOf(run: (db: Kysely<Database>) => Promise<unknown>): Promise<string[]> {
  const queries: CompiledQuery[] = [];
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: handle.sqlite! }),
    log: (event) => void queries.push(event.query),
  });
  await run(db);
  return queries.map((q) =>
    handle
      .sqlite!.prepare(`explain query plan ${q.sql}`)
      .all(...(q.parameters as unknown[]))
      .map((row) => (row as { detail: string }).detail)
      .join(' | '),
  );
}

const TRACE = '0af7651916cd43dd8448eb211c80319c';

describe('SQLite listing plans', () => {
  it.each(['spans', 'logs', 'metric_points', 'replay_chunks', 'recipes'] satisfies TelemetryTable[])(
    "a session's %s come from the session index",
    async (table) => {
      const [plan] = await plansOf((db) =>
        listRecords(db, table, { projectId: 'p1', equal: { session_id: 's1' }, limit: 100 }),
      );
      expect(plan).toContain(`USING INDEX ${table}_session_time (project_id=? AND session_id=?)`);
    },
  );

  it.each(['spans', 'logs', 'recipes'] satisfies TelemetryTable[])(
    "a trace's %s come from the trace index",
    async (table) => {
      const [plan] = await plansOf((db) =>
        listRecords(db, table, { projectId: 'p1', equal: { trace_id: TRACE }, limit: 100 }),
      );
      expect(plan).toContain(`USING INDEX ${table}_trace_time (trace_key=?`);
    },
  );

  it('the trace detail and the search by id read the trace index', async () => {
    const plans = await plansOf(async (db) => {
      await traceSpans(db, 'p1', TRACE);
      await searchIds(db, 'p1', TRACE);
    });
    const spanPlans = plans.filter((p) => p.includes('spans'));
    expect(spanPlans.length).toBeGreaterThanOrEqual(2);
    for (const plan of spanPlans) expect(plan).not.toContain('spans_project_time');
  });
});

describe('SQLite trace search plans', () => {
  it("a session's traces come from the spans' session index and the summaries' key, not a walk of every trace", async () => {
    const plans = await plansOf((db) =>
      searchTraces(db, 'sqlite', {
        projectId: 'p1',
        from: undefined,
        to: undefined,
        session_id: 's1',
        sort: 'start',
        order: 'desc',
        value: 'integer',
        limit: 50,
      }),
    );
    const plan = plans.join(' || ');
    expect(plan).toContain('spans_session_time (project_id=? AND session_id=?)');
    expect(plan).not.toMatch(/USING INDEX trace_summaries_(start|duration|spans|errors)/);
  });
});

describe('SQLite session facet plans', () => {
  it('the facets since a start seek each value and a session active since then, never reading the sessions in range', async () => {
    const plans = await plansOf((db) =>
      sessionFacets(db, { projectId: 'p1', range: [sql<SqlBool>`s.last_ms >= ${1}`], activeSince: 1 }),
    );
    const facetPlans = plans.filter((p) => p.includes('sessions'));
    expect(facetPlans).toHaveLength(4);
    for (const [i, column] of ['env', 'release', 'browser', 'app_id'].entries()) {
      expect(facetPlans[i]).toContain(
        `sessions_project_${column}_activity (project_id=? AND ${column}=? AND last_ms>?)`,
      );
      expect(facetPlans[i]).not.toMatch(/SCAN sessions|sessions_last|USE TEMP B-TREE/);
    }
  });

  it('the sampling figures of a window read only the last-activity index, never the sessions rows', async () => {
    const plans = await plansOf(async (db) => {
      await samplingSummary(db, 'p1', { from: 1 });
      await samplingSummary(db, 'p1', { appId: 'a1', from: 1, to: 2 });
    });
    for (const plan of plans)
      expect(plan).toContain('USING COVERING INDEX sessions_project_last (project_id=? AND last_ms>?)');
  });

  it.each([
    ['vitals', { aggregate: 'p75', metric: 'LCP', filter: { route: '/checkout*' } }, 'metric_points_project_name_time'],
    ['metrics', { aggregate: 'avg', metric: 'app.queue' }, 'metric_points_project_name_time'],
    ['metrics', { aggregate: 'p95', metric: 'app.queue' }, 'metric_points_project_name_time'],
    ['spans', { aggregate: 'count' }, 'spans_project_time'],
    ['spans', { aggregate: 'error_rate', filter: { route: '/api/cart*' } }, 'spans_project_time'],
    ['spans', { aggregate: 'p95', filter: { name: 'HTTP GET' } }, 'spans_project_time'],
    ['logs', { aggregate: 'count', filter: { severity: ['error'] } }, 'logs_project_time'],
    // Sessions seen in a window: those ended soon after it, and the ones that lasted longer (alerts/query/sessions.ts).
    ['sessions', { aggregate: 'error_free_share' }, '(sessions_project_last|sessions_project_duration)'],
  ] satisfies Array<[Signal, AlertQuery, string]>)(
    "an alert rule's %s aggregate (%o) reads the window through %s, every read of it",
    async (signal, query, index) => {
      // A five-minute window read whole, and a two-hour one in ten-minute slots (alerts/query/slots.ts).
      const plans = await plansOf(async (db) => {
        for (const windowSeconds of [300, 7200])
          await evaluateRule(
            db,
            {
              projectId: 'p1',
              signal,
              query,
              windowSeconds,
              condition: { type: 'threshold', op: 'above', value: 1 },
              recovery: null,
              forSeconds: 0,
            },
            { fromMs: 100_000_000 - windowSeconds * 1000, toMs: 100_000_000 },
            100_000_000,
          );
      });
      // The value's statements (a percentile's on SQLite: the sorted values and the count in its subquery; a slotted
      // read's grouped statement), and for a count with nothing counted the read of whether the signal sent anything.
      for (const plan of plans) {
        const reads = plan.split(' | ').filter((d) => /^(SEARCH|SCAN) r\b/.test(d));
        expect(reads.length, plan).toBeGreaterThan(0);
        for (const read of reads) expect(read, plan).toMatch(new RegExp(`^SEARCH r USING (COVERING )?INDEX ${index} `));
      }
    },
  );
});
