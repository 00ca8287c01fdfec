import { describe, expect, it } from 'vitest';
import { fromColumns, toColumns } from '../../server/src/ingest/row-columns';
import type { StoredRow } from '../../server/src/ingest/writer';

/** The rows a write hands to the SQLite writer thread cross as columns and come back the same (issue 33). */
describe('rows as columns for the writer thread', () => {
  const row = (i: number, extra: Record<string, unknown> = {}): StoredRow => ({
    project_id: 'p',
    app_id: 'a',
    received_ms: 5,
    session_id: i % 2 ? 's1' : null,
    time_ms: 100 + i,
    resource: '{"service.name":"web-app"}',
    end_ms: undefined,
    data: Buffer.from([i]),
    ...extra,
  });

  it('sends a value every row holds once, and gives back each row with its columns in order', () => {
    const rows = [row(0), row(1), row(2)];
    const columns = toColumns(rows)!;
    expect(columns.columns[columns.names.indexOf('resource')]).toEqual({ every: '{"service.name":"web-app"}' });
    expect(columns.columns[columns.names.indexOf('time_ms')]).toEqual([100, 101, 102]);
    const back = fromColumns(structuredClone(columns));
    expect(back.map((r) => Object.keys(r))).toEqual(rows.map((r) => Object.keys(r)));
    expect(back.map((r) => ({ ...r, data: Buffer.from(r.data as Uint8Array) }))).toEqual(rows);
  });

  it('leaves rows whose columns differ as they are', () => {
    expect(toColumns([row(0), row(1, { object_key: 'k' })])).toBeUndefined();
    expect(toColumns([row(0, { object_key: 'k' }), row(1)])).toBeUndefined();
    const { time_ms: _, ...reordered } = row(1);
    expect(toColumns([row(0), { ...reordered, time_ms: 101 }])).toBeUndefined();
  });
});
