import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../../server/src/db/connect';
import { tracesQuery } from '../../../server/src/traces/schemas';
import { traceDetail } from '../../../server/src/traces/detail';
import { searchPage, traceSearchOf } from '../../../server/src/traces/search';
import { sqliteGroupWrite } from '../../../server/src/ingest/sqlite-group-write';
import { readSideDatabase, spanRow } from '../../support/read-side-db';

const T = (n: number) => n.toString(16).padStart(32, '0');
const NOW = 10_000_000;

describe('traces store (SQLite)', () => {
  let database: DatabaseHandle & { projectId: string; appId: string };
  /** The trace ids a query string's search finds, in its order. */
  const found = async (query: Record<string, string>) => {
    const search = traceSearchOf(tracesQuery.parse(query), 'p1', undefined, NOW);
    const page = await searchPage({ db: database.db, dialect: 'sqlite' }, search);
    return page.data.map((t) => t.trace_id);
  };

  beforeAll(async () => {
    database = await readSideDatabase();
    // Through the ingest's own SQLite write, which keeps the trace summaries the search reads.
    const rows = [
      spanRow(T(1), 'a1', NOW - 3000, 40, { name: 'GET /100%_off' }),
      spanRow(T(1), 'a2', NOW - 2990, 10, { parent_span_id: 'a1', name: 'db query', status_code: 2 }),
      spanRow(T(2), 'b1', NOW - 2000, 900, { resource: '{"attributes":{"service.name":"api"}}' }),
      spanRow(T(3), 'c1', NOW - 1000, 5, { session_id: 's1', events: '[{"name":"exception"}]' }),
      // Outside the default 24-hour window.
      spanRow(T(4), 'd1', NOW - 25 * 3_600_000, 5),
    ];
    const [outcome] = sqliteGroupWrite(database.sqlite!)([{ projectId: 'p1', table: 'spans', rows, receivedMs: NOW }]);
    expect(outcome).toMatchObject({ ok: true, result: { stored: 5 } });
  });
  afterAll(() => database?.close());

  it('turns each filter into a condition on the trace as a whole', async () => {
    expect(await found({})).toEqual([T(3), T(2), T(1)]);
    // LIKE's own characters in the name match literally.
    expect(await found({ name: '100%_' })).toEqual([T(1)]);
    expect(await found({ name: '100%x' })).toEqual([]);
    expect(await found({ status: 'error' })).toEqual([T(1)]);
    expect(await found({ service: 'api' })).toEqual([T(2)]);
    expect(await found({ min_duration_ms: '100' })).toEqual([T(2)]);
    expect(await found({ max_duration_ms: '20' })).toEqual([T(3)]);
    // A trace or session named is found outside the default window.
    expect(await found({ trace_id: T(4) })).toEqual([T(4)]);
    expect(await found({ session_id: 's1' })).toEqual([T(3)]);
  });

  it('sorts and pages by the chosen figure, refusing a cursor of another sort', async () => {
    expect(await found({ sort: 'duration', order: 'asc' })).toEqual([T(3), T(1), T(2)]);
    expect(await found({ sort: 'errors' })).toEqual([T(3), T(1), T(2)]);
    const first = await searchPage(
      { db: database.db, dialect: 'sqlite' },
      traceSearchOf(tracesQuery.parse({ limit: '2' }), 'p1', undefined, NOW),
    );
    expect(first.data.map((t) => t.trace_id)).toEqual([T(3), T(2)]);
    expect(await found({ limit: '2', cursor: first.next_cursor! })).toEqual([T(1)]);
    expect(() =>
      traceSearchOf(tracesQuery.parse({ sort: 'spans', cursor: first.next_cursor! }), 'p1', undefined, NOW),
    ).toThrow(expect.objectContaining({ kind: 'invalid', code: 'invalid_request' }));
  });

  it('reads one trace with its root, label and errors, and says not_found for an unknown one', async () => {
    const trace = await traceDetail(database.db, 'p1', T(1));
    expect(trace).toMatchObject({ trace_id: T(1), label: 'GET /100%_off', error_count: 1, truncated: false });
    expect(trace.spans.map((s) => s.span_id)).toEqual(['a1', 'a2']);
    await expect(traceDetail(database.db, 'p1', T(9))).rejects.toMatchObject({
      kind: 'not_found',
      message: `no trace "${T(9)}" in this project`,
    });
  });
});
